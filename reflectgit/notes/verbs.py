"""A verb's base form from its -ing or -ed form: ``renaming`` -> ``rename``, ``pinned`` -> ``pin``,
``configuring`` -> ``configure``, ``copied`` -> ``copy``. Pure.

A note is titled by what to do, so "fixed by renaming X" becomes "Rename X". English spelling
rules decide it, in this order, on the stem left when the ending is cut:

1. a doubled final consonant is one letter of the verb (``running`` -> ``run``, ``committed`` ->
   ``commit``), except when the verb ends in it (``install``, ``pass``, ``add``); ``ll`` after
   ``e`` or ``o`` in a longer verb is British doubling (``controlling`` -> ``control``);
2. endings that never stand without a silent ``e`` get it back (``-v``, ``-z``, ``-c``, ``-u``,
   ``-ur``, ``-ir``, a consonant before ``l`` as in ``handl``, ``-dg``, ``-rg``, ``-at`` after a
   consonant, ``-ut``, ``-rit``, ``-cit``, a single ``s``, ...);
3. a stem whose last syllable is consonant-vowel-consonant did not double its consonant, so
   the verb ends in a silent ``e`` when that syllable is the stressed one: a one-syllable stem
   (``mak`` -> ``make``) or one behind a prefix (``renam`` -> ``rename``, ``defin`` ->
   ``define``); an unstressed last syllable has none (``edit``, ``visit``, ``open``,
   ``develop``, ``refactor``).

Irregular pasts (``wrote``, ``made``) and the few verbs these rules get wrong are listed.
"""

from __future__ import annotations

import re

_VOWELS = "aeiou"
# Pasts that are no -ed form, and verbs the spelling rules get wrong.
_IRREGULAR = {
    "made": "make",
    "wrote": "write",
    "rewrote": "rewrite",
    "overwrote": "overwrite",
    "ran": "run",
    "took": "take",
    "built": "build",
    "rebuilt": "rebuild",
    "found": "find",
    "kept": "keep",
    "left": "leave",
    "sent": "send",
    "got": "get",
    "gave": "give",
    "brought": "bring",
    "chose": "choose",
    "threw": "throw",
    "overrode": "override",
    "began": "begin",
    "hid": "hide",
    "held": "hold",
    "led": "lead",
    "met": "meet",
    "paid": "pay",
    "said": "say",
    "told": "tell",
    "understood": "understand",
    "agreed": "agree",
    "freed": "free",
    "embed": "embed",
    "shed": "shed",
}
_STEM_FIXES = {
    "rout": "route",
    "guid": "guide",
    "cach": "cache",
    "enter": "enter",
    "focus": "focus",
}
_PREFIXES = (
    "over",
    "under",
    "inter",
    "trans",
    "pre",
    "pro",
    "con",
    "com",
    "dis",
    "sub",
    "re",
    "de",
    "ex",
    "in",
    "en",
    "im",
    "es",
    "ig",
    "ad",
    "di",
)
# Endings after which a verb always has a silent e (handl-e, merg-e, updat-e, comput-e, ...).
_NEEDS_E = re.compile(
    r"(?:v|ur|ir|dg|rg|writ|cit|vit|[lp]et|[^z]z|[bcdfgkptz]l|dul|(?:[^aeiou]|cre|u)at|[^aeiou]ar|"
    r"(?<!s)s|(?<!yn)c)$"
)
_NEEDS_E_LONG = re.compile(r"(?:[ae]ng|[^aeiou]in)$")  # chang-e, defin-e; not hang, spin


# How an English syllable may begin: the root behind a prefix must (re+nam, ex+plor, not
# re+nder).
_ONSET = re.compile(
    r"(?:str|spl|spr|scr|bl|br|cl|cr|dr|fl|fr|gl|gr|pl|pr|sc|sk|sl|sm|sn|sp|st|sw|tr|tw|wr|th|"
    r"sh|ch|ph|qu|[bcdfghjklmnpqrstvwxz])[aeiouy]"
)


def base(word: str) -> str:
    """The base form of a verb given in its -ing or -ed form, lowercased; any other word
    lowercased as it is (``send``, ``need``, ``bring``)."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low.endswith("ing") and len(low) > 4:
        stem, past = low[:-3], False
    elif low.endswith("ied") and len(low) > 4:
        return low[:-3] + "y"
    elif low.endswith("ed") and len(low) > 3 and not low.endswith("eed"):
        stem, past = low[:-2], True
    else:
        return low
    if not any(c in _VOWELS + "y" for c in stem):
        return low  # bring, embed: no -ing or -ed form at all
    return _restore(stem, past)


def is_past(word: str) -> bool:
    """Is ``word`` a verb's past form (``wrote``, ``removed``, ``copied``)? An -ed form whose
    base differs from it, or an irregular past; ``need``, ``embed`` and ``speed`` are not."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low] != low
    return low.endswith("ed") and not low.endswith("eed") and base(low) != low


def _restore(stem: str, past: bool) -> str:
    if stem in _STEM_FIXES:
        return _STEM_FIXES[stem]
    last = stem[-1]
    if len(stem) > 2 and last == stem[-2] and last not in _VOWELS:
        if len(stem) == 3 and stem[0] in _VOWELS:
            return stem  # add, err, ebb, egg, odd
        if last in "sfz":
            return stem  # pass, sniff, buzz
        if last == "l":
            british = _syllables(stem) > 1 and stem[-3] in "eo"
            return stem[:-1] if british else stem  # control, cancel; install, fill
        return stem[:-1]
    if last in "wxy":
        return stem  # show, fix, copy
    if last == "e":
        return stem + ("e" if past else "")  # agreed -> agree; seeing -> see
    if last == "u":
        return stem + "e"  # queu-e, continu-e, valu-e
    if last in _VOWELS:
        return stem  # echoing -> echo, vetoed -> veto
    if _NEEDS_E.search(stem) or _long_e(stem):
        return stem + "e"
    if stem.endswith("ut") and stem[-3] not in _VOWELS and not stem.endswith("put"):
        return stem + "e"  # comput-e, execut-e; output, input
    if _stressed_cvc(stem):
        return stem + "e"
    return stem


def _long_e(stem: str) -> bool:
    """``chang``, ``arrang`` (five letters or more before -ing); ``defin``, ``combin`` (two
    syllables or more)."""
    m = _NEEDS_E_LONG.search(stem)
    if m is None:
        return False
    return len(stem) >= 5 if stem.endswith("ng") else _syllables(stem) > 1


def _groups(stem: str) -> list[str]:
    """The vowel groups of a stem (``qu`` and a ``y`` before a vowel are consonants)."""
    text = stem.replace("qu", "qw")
    text = re.sub(r"y(?=[aeiou])", "j", text)
    return re.findall(r"[aeiouy]+", text)


def _syllables(stem: str) -> int:
    return len(_groups(stem))


def _cvc(stem: str) -> bool:
    """Ends consonant, one vowel letter, consonant (``nam``, ``plor``; not ``load``, ``it``)."""
    text = re.sub(r"y(?=[aeiou])", "j", stem.replace("qu", "qw"))
    return bool(re.search(r"[^aeiouy][aeiouy][^aeiouywx]$", text))


def _stressed_cvc(stem: str) -> bool:
    if not _cvc(stem):
        return False
    if _syllables(stem) == 1:
        return True
    for prefix in _PREFIXES:
        root = stem[len(prefix) :]
        if stem.startswith(prefix) and _ONSET.match(root) and _syllables(root) == 1 and _cvc(root):
            return True
    return False
