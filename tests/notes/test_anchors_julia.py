"""The symbol finder reads Julia (``reflectgit/notes/julia.py``): a long-form body ends at the
``end`` that closes it, short-form methods and types are definitions, a name in a comment, a
string, a call or a local defines nothing."""

from __future__ import annotations

import pytest

from reflectgit.notes import anchors, julia

DICT_JL = '''# get the index where a key is stored; ht_keyindex(h, key) = -1 when it is not
#= a block comment: ht_keyindex(h, k) = 0
   end end =#
"""
    ht_keyindex(h, key, direct)

The slot of `key`, or -1. Not `end`.
"""
function ht_keyindex(h::OrderedDict{K,V}, key, direct) where {K,V}
    slots = h.slots
    last = h.keys[end]            # an index, not a block's end
    first = h.keys[begin]
    msg = "the end of ht_keyindex"  # end in a string
    c = 'e'
    t = slots'
    @inbounds while iter <= maxprobe
        if slots[index] == 0
            break
        end
        for i in 1:2
            iter += 1
        end
    end
    ys = [x for x in slots if x > 0]
    open(path) do io
        let y = 1
            try
                begin
                    read(io)
                end
            catch e
                quote
                    $e
                end
            end
        end
    end
    return -1
end

function rehash!(h::OrderedDict, newsz = length(h.slots))
    # a local function of the same name as another, indented in this one
    ht_keyindex(x) = x + 1
    function isordered(y)
        y
    end
    index = ht_keyindex(h, key, true)  # a call: no definition
    return h
end

dict_with_eltype(kv, ::Type{Tuple{K,V}}) where {K,V} = OrderedDict{K,V}(kv)
dict_with_eltype(kv, t) = OrderedDict{Any,Any}(kv)

isordered(::Type{T}) where {T<:AbstractDict} =
    false
isordered(::Type{T}) where {T<:OrderedDict} = true

Base.sort(d::OrderedDict; args...) = sort!(copy(d); args...)
@inline length(d::OrderedDict) = length(d.keys) -
                                 d.ndel

mutable struct OrderedDict{K,V} <: AbstractDict{K,V}
    slots::Array{Int32,1}
    keys::Array{K,1}
    function OrderedDict{K,V}() where {K,V}
        new{K,V}(zeros(Int32,16), Vector{K}())
    end
end
OrderedDict() = OrderedDict{Any,Any}()

abstract type AbstractOrdered <: AbstractDict{Any,Any} end
primitive type Slot 32 end
const StoreType{T} = Union{Tuple{Vararg{T}},
                           AbstractVector{T}}

macro ordered(ex)
    if ex isa Expr
        ex
    end
end

function emptyfn end

@static if VERSION >= v"1.11"
    copy(d::OrderedDict) = OrderedDict(d)
else
    function copy(d::OrderedDict)
        OrderedDict(d)
    end
end
'''

KEYINDEX = DICT_JL[DICT_JL.index("function ht_keyindex") : DICT_JL.index("function rehash!")]


def test_a_long_form_body_ends_at_the_end_that_closes_it() -> None:
    # ``a[end]``, ``a[begin]``, ``end`` in a string or a comment, a comprehension's ``for`` and
    # ``if``, a character, an adjoint, every block word's ``end``: the block is the function,
    # without the docstring before it and without what follows it
    assert anchors.symbol_block(DICT_JL, "ht_keyindex") == KEYINDEX.rstrip("\n") + "\n"
    assert anchors.symbol_block(DICT_JL, "ht_keyindex").endswith("    return -1\nend\n")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("symbol", "block"),
    [
        # a short form continued on a line indented after it
        ("isordered", "isordered(::Type{T}) where {T<:AbstractDict} =\n    false\n"),
        # qualified by the module that owns the function: ``sort`` names ``Base.sort``
        ("sort", "Base.sort(d::OrderedDict; args...) = sort!(copy(d); args...)\n"),
        ("Base.sort", "Base.sort(d::OrderedDict; args...) = sort!(copy(d); args...)\n"),
        # a macro before it; the expression runs on its indented line
        (
            "length",
            "@inline length(d::OrderedDict) = length(d.keys) -\n"
            "                                 d.ndel\n",
        ),
        # a struct with its fields and its inner constructor, to its own ``end``
        (
            "OrderedDict",
            "mutable struct OrderedDict{K,V} <: AbstractDict{K,V}\n"
            "    slots::Array{Int32,1}\n    keys::Array{K,1}\n"
            "    function OrderedDict{K,V}() where {K,V}\n"
            "        new{K,V}(zeros(Int32,16), Vector{K}())\n    end\nend\n",
        ),
        ("AbstractOrdered", "abstract type AbstractOrdered <: AbstractDict{Any,Any} end\n"),
        ("Slot", "primitive type Slot 32 end\n"),
        # a constant over two lines (its bracket left open)
        (
            "StoreType",
            "const StoreType{T} = Union{Tuple{Vararg{T}},\n"
            "                           AbstractVector{T}}\n",
        ),
        ("ordered", "macro ordered(ex)\n    if ex isa Expr\n        ex\n    end\nend\n"),
        ("emptyfn", "function emptyfn end\n"),
    ],
)
def test_julia_definitions_are_blocks(symbol: str, block: str) -> None:
    assert anchors.symbol_block(DICT_JL, symbol) == block


def test_each_method_of_a_name_is_a_block() -> None:
    assert anchors.anchored_blocks(DICT_JL, "dict_with_eltype") == [
        "dict_with_eltype(kv, ::Type{Tuple{K,V}}) where {K,V} = OrderedDict{K,V}(kv)\n",
        "dict_with_eltype(kv, t) = OrderedDict{Any,Any}(kv)\n",
    ]
    # the local ``isordered`` inside rehash! is not one of them
    assert anchors.anchored_blocks(DICT_JL, "isordered") == [
        "isordered(::Type{T}) where {T<:AbstractDict} =\n    false\n",
        "isordered(::Type{T}) where {T<:OrderedDict} = true\n",
    ]
    # a struct and the outer constructor of its name; the inner one is inside the struct
    blocks = anchors.anchored_blocks(DICT_JL, "OrderedDict")
    assert len(blocks) == 2 and blocks[1] == "OrderedDict() = OrderedDict{Any,Any}()\n"
    # a definition an ``@static if`` chooses: both branches
    assert anchors.anchored_blocks(DICT_JL, "copy") == [
        "    copy(d::OrderedDict) = OrderedDict(d)\n",
        "    function copy(d::OrderedDict)\n        OrderedDict(d)\n    end\n",
    ]


@pytest.mark.parametrize(
    "symbol",
    [
        "slots",  # a local variable in a body, a struct's field
        "iter",  # assigned inside a loop
        "open",  # a call with a do block
        "hashindex",  # not defined at all
        "end",  # a keyword
    ],
)
def test_julia_uses_and_locals_are_not_definitions(symbol: str) -> None:
    assert anchors.symbol_block(DICT_JL, symbol) is None


def test_a_name_in_a_comment_a_string_or_a_local_defines_nothing() -> None:
    # ``ht_keyindex`` is in a line comment, a block comment, a docstring, a string, a call and
    # a local of another function: it is defined once
    assert len(anchors.anchored_blocks(DICT_JL, "ht_keyindex")) == 1
    text = (
        "# ht_keyindex(h, key) = -1\n#= ht_keyindex(h) = 0 =#\n"
        'msg(x::Int) = "ht_keyindex(h) = 1"\n'
        "function outer(x::Int)\n    ht_keyindex(h) = 2\n    ht_keyindex(x)\nend\n"
    )
    assert anchors.symbol_block(text, "ht_keyindex") is None
    assert anchors.symbol_block(text, "outer") == (
        "function outer(x::Int)\n    ht_keyindex(h) = 2\n    ht_keyindex(x)\nend\n"
    )


def test_an_end_in_a_string_interpolation_or_a_nested_comment_closes_nothing() -> None:
    text = (
        "function f(x::Int)\n"
        '    s = "$(join(["end", "x"], ", ")) end"\n'
        '    r = """\n    end\n    """\n'
        "    #= outer #= inner end =# end =#\n"
        "    x\nend\n\ng(y::Int) = y\n"
    )
    assert anchors.symbol_block(text, "f") == text[: text.index("\ng(")]
    assert anchors.symbol_block(text, "g") == "g(y::Int) = y\n"


def test_other_languages_are_not_read_as_julia() -> None:
    # Lua: ``for ... do ... end`` is one block there, two in Julia's words
    lua = (
        "function M.inspect(root, options)\n  for k, v in pairs(root) do\n    print(k)\n  end\n"
        "  return root\nend\n\nfunction M.other()\nend\n"
    )
    assert not julia.reads(lua)
    assert anchors.symbol_block(lua, "inspect").startswith("function M.inspect")  # type: ignore[union-attr]
    # Ruby's ``Foo::Bar``, Rust's ``where T:`` and module paths, C++'s ``(ns::Type x)``
    assert not julia.reads("def run(x)\n  Errors::Timeout.new(x)\nend\n")
    assert not julia.reads("fn f<T>(x: T) -> T\nwhere T: Clone {\n    x\n}\n")
    assert not julia.reads('    assert!(sync::OnceCell::from("a") == sync::OnceCell::from("a"));\n')
    assert not julia.reads("int Reader::Get(std::string section, Name::Kind kind) {\n}\n")
    # a Python banner comment is no Julia block comment
    py = "#===== helpers =====\ndef run(x: int) -> int:\n    return x\n"
    assert not julia.reads(py) and anchors.symbol_block(py, "run") == py[py.index("def") :]
    # what only Julia writes
    assert julia.reads("_tablesz(x::Integer) = x < 16 ? 16 : x\n")
    assert julia.reads("function f(x)\n    x\nend\nabstract type A end\n")
    assert julia.reads("g(x) where {T} = x\n".replace("g(x)", "g(x::T)"))
