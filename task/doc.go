// Package task reads Pome task files, grades sandboxes against their
// criteria and runs agents end to end (SPEC §7).
//
// # Grammar
//
// A task is Markdown: a "# Title" (its first "# " line; without one, the
// file's name), then "##" sections, the grammar of the original Pome
// (github.com/pome-sh/digital-twins) with a few additions. Section names
// are matched case-insensitively; a section of another name is ignored
// with a warning, and text outside any section is prose.
//
//   - Config: one fenced YAML or JSON block (or the section's text as
//     YAML, unfenced) with twins (default [github]),
//     class (conformance, restraint or adversarial; recorded in meta.json
//     and the verdict), timeout (seconds or a duration such as "2m";
//     default 60 s), runs (default 1) and passThreshold (0–100; default
//     100). A task without the section takes every default.
//   - Seed State: one fenced JSON block. With one twin it is that twin's seed
//     ("flat") or an envelope {"<twin>": …}; with several twins it is always
//     an envelope. A top-level "clock" in an envelope fixes the sandbox
//     clock; a top-level "_meta" (the original's provenance block) is
//     dropped. A sibling file <task>.seed.json holds the same document and
//     wins over the section, as in the original, where the section is
//     prose that `compile-seeds` turned into that file: when the sidecar's
//     _meta.source_hash (the original's "sha256:" hash of the section's
//     trimmed text) no longer matches the prose, a warning says so. A prose
//     section without a sidecar is an error.
//   - Prompt (alias Task): what the agent is asked to do.
//   - Success Criteria (alias Checks): criteria, one per list item,
//     "- [code] …", "- [code:twin] …", "- [code:twin always-scored] …",
//     "- [model] …" or "- [model:twin] …". Other lines are prose and not
//     graded, as in the original; an untagged list item gets a warning.
//   - Expected Behavior: notes for judges and humans; never shown to the
//     agent.
//   - Setup: prose for humans; ignored.
//
// What cannot be graded is refused with file:line and a reason, never
// skipped: a [code] line that renders no check's template, a twin tag
// outside the task's twins, an untagged [code] line in a multi-twin task
// (the original refuses it too), a line that reaches for a tag and misses
// the grammar ("-[code] …"), the retired [D]/[P] tags (with the original's
// hint: [D]→[code], [P]→[model], twin tags carry over), a bad config, a
// seed the twin rejects.
//
// # Binding
//
// A [code] line binds to the check of its twin whose template, with each
// {param} replaced by the parameter's pattern, matches the line's text
// (twins.Check.Match). The check declarations are therefore the only source
// of the criterion grammar: a twin that adds a check adds its sentence.
//
// # Seed exclusion
//
// A criterion that a do-nothing agent would pass earns no credit, so a
// positive check over the final state (substrate "final", polarity
// "positive") that already passes on the seed world is reported as
// "excluded" with reason already_true_in_seed, unless the line says
// always-scored. The rule deliberately leaves out:
//
//   - negative checks, which are guards ("no refund on ch_1") and hold for
//     every untouched world by design: excluding them would drop every guard;
//   - seed+final checks, which already compare the final world with the
//     seed ("no new message"), so evaluating them with final = seed says
//     nothing about the agent;
//   - tape checks, which read only what the agent called; on the empty tape
//     of the seed the negative ones hold trivially and the positive ones fail.
//
// # Verdict
//
// score = 100 × passed / evaluated, over the criteria that were evaluated
// (not excluded, not abstained). state is incomplete when any [code]
// criterion could not be evaluated (status error) or when none was
// evaluated; otherwise pass when score ≥ passThreshold, else fail. [model]
// criteria abstain unless a judge is given; judged ones count like [code]
// ones.
package task
