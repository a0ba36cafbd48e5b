"""Fit the reader rule's score floor from `slm eval locomo --signals FILE`.

  fit_rule.py SIGNALS.jsonl [--convs conv-30,conv-42]

For each floor f, a memory the reader judged is supported when the reader's confidence is at
least 0.5, its support score (without any judge term) at least f, and the names and
answer-type tests pass; a question is supported when any of its memories is. Printed per
floor: answerable questions with their evidence in the top 3 that are supported, adversarial
questions that are not, and their mean. --convs keeps only the conversations the reader was
not trained on (its card: LoCoMo conv-26 and conv-41 were training data). The notes sets are
the check on another source: `slm eval notes` with the chosen floor.
"""

import argparse
import json

READER_SUPPORTS_AT = 0.5


def supported(sig, floor):
    for m in sig or []:
        p = m.get("reader")
        if p is None:
            ok = m["word_match"] and m["names_ok"] and m["of_type"] and m["score"] >= m["threshold"]
        else:
            ok = p >= READER_SUPPORTS_AT and m["score"] >= floor and m["names_ok"] and m["of_type"]
        if ok:
            return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("signals")
    ap.add_argument("--convs", default="")
    a = ap.parse_args()
    keep = set(filter(None, a.convs.split(",")))
    rows = []
    for line in open(a.signals):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a line still being written
    rows = [r for r in rows if not keep or r["conversation"] in keep]
    ans = [r for r in rows if r["category"] != 5]
    adv = [r for r in rows if r["category"] == 5]
    print(f"{len(ans)} answerable with evidence in the top 3, {len(adv)} adversarial")
    print("floor  supported  adversarial-not-supported  mean")
    for f in [0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]:
        s = sum(supported(r["support"], f) for r in ans) / max(1, len(ans))
        n = sum(not supported(r["support"], f) for r in adv) / max(1, len(adv))
        print(f"{f:5.2f}  {s:9.3f}  {n:25.3f}  {(s + n) / 2:.3f}")


if __name__ == "__main__":
    main()
