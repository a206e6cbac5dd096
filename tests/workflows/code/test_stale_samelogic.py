"""``reflect-git stale`` against a real git history, on code rewritten around what a note
states (issue 35, "the same logic written another way"): a message reworded beside a stated
check is no change to it; an argument added to the call a note names, a comparison flipped
in a rewritten line, are. Each with the change that must still be flagged."""

from __future__ import annotations

from tests.support.codeworld import World

CMD_GO = """package main

func main() {
	var rawEnvFilenames string
	flag.Parse()
	envFilenames := strings.Split(rawEnvFilenames, ",")
	err := godotenv.Exec(envFilenames, cmd, cmdArgs)
	if err != nil {
		log.Fatal(err)
	}
}
"""

LIMITS_TS = """export function check(cap: number): void {
	if (!(typeof cap === 'number' && cap >= 1)) {
		throw new TypeError(`Expected a cap from 1 and up, got ${cap}`);
	}
}
"""


def test_a_rewrite_around_a_stated_check_is_not_stale_an_argument_added_is(world: World) -> None:
    world.code.write("cmd/cmd.go", CMD_GO).write("src/limits.ts", LIMITS_TS).commit("cli")
    shell = world.add(
        "The CLI cannot override the shell",
        "`godotenv -f .env.prod my-cmd` uses Exec, which uses Load: the shell wins.",
        "cmd/cmd.go",
    )
    cap = world.add(
        "A cap below 1 throws",
        "`check(cap)` throws TypeError unless cap is a number >= 1.",
        "src/limits.ts:check",
    )
    # the message written another way: the check the note states is the same
    worded = LIMITS_TS.replace("got ${cap}", "got ${cap?.toString() ?? ''}")
    world.code.write("src/limits.ts", worded).commit("message")
    doc = world.stale()
    assert doc["stale"] == []
    assert [e["id"] for e in doc["changed"]] == [cap]
    # the CLI passes a new argument to the call the note names; the comparison flipped
    world.code.write("cmd/cmd.go", CMD_GO.replace("cmdArgs)", "cmdArgs, overload)"))
    world.code.write("src/limits.ts", worded.replace("cap >= 1", "cap > 1")).commit("overload")
    assert sorted(e["id"] for e in world.stale()["stale"]) == sorted([shell, cap])
