"""What a note states as missing, and the definitions that end it (``notes/absences.py``)."""

from __future__ import annotations

import pytest

from reflectgit.notes.absences import defined, missing

INI_H = """class INIReader
{
public:
    INIReader(const std::string& filename);
    std::string Get(const std::string& section, const std::string& name) const;
};
"""

INI_H_HAS = INI_H.replace(
    "};", "    bool HasValue(const std::string& section, const std::string& name) const;\n};"
)


@pytest.mark.parametrize(
    ("said", "names"),
    [
        ("There is no `MarshalText`/`UnmarshalText`, so levels do not round-trip.", {"MarshalText", "UnmarshalText"}),
        ("It has no HasValue/HasSection: test a key with Get and a default.", {"HasValue", "HasSection"}),
        ("The only public way to change it is the package `SetLevel`.", {"SetLevel"}),
        ("Levels can't be parsed back: `ParseLevel` reads names.", set()),  # its own sentence
        ("`String` spells it as warning; `MarshalText` writes it.", set()),  # no absence
    ],
)  # fmt: skip
def test_missing_reads_the_names_of_a_sentence_of_absence(said: str, names: set[str]) -> None:
    assert missing(None, said) - {"There", "It", "The", "Levels"} == names


def test_a_declaration_the_note_says_is_missing_ends_the_absence() -> None:
    said = "It has no HasValue: test for a key with Get and a sentinel default."
    assert defined(INI_H, INI_H_HAS, "Built from a file only", said) == ["HasValue"]


def test_nothing_ends_without_the_named_definition_or_a_word_of_absence() -> None:
    assert defined(INI_H, INI_H_HAS, None, "It has no HasSection.") == []
    assert defined(INI_H, INI_H_HAS, None, "Use HasValue to test for a key.") == []
    assert defined(INI_H, INI_H, None, "It has no HasValue.") == []


def test_a_name_the_old_file_defined_already_is_no_absence_ended() -> None:
    overloaded = INI_H_HAS.replace("};", "    bool HasValue(const std::string& key) const;\n};")
    said = "`HasValue` is the only test for a key."
    assert defined(INI_H, INI_H_HAS, None, said) == ["HasValue"]
    assert defined(INI_H_HAS, overloaded, None, said) == []  # one more overload
    assert (
        defined(INI_H, INI_H_HAS, None, "Test a key with `HasValue` or `Get(?none)`.") == []
    )  # code
