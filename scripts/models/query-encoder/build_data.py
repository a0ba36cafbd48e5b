"""Build the query encoder's training data from public QA sets (see manifest.json).

  python build_data.py DATA_DIR OUT_DIR

DATA_DIR holds the files named in manifest.json (SQuAD 2.0's official dev set as split in two
by chrischute/squad, FriendsQA dev and test), read
in place. Writes OUT_DIR/queries.jsonl ({id, text, src, pos: [doc ids]}) and OUT_DIR/docs.jsonl
({id, text, src}). Documents are what slm stores: single sentences of SQuAD's paragraphs and
single FriendsQA turns ("Speaker: words"), not whole paragraphs. A question's `pos` are the
documents that hold its answer; questions without an answer (SQuAD 2.0's unanswerable ones)
and documents re-used as query texts have none and teach only by copying the teacher's vector.

No LoCoMo text and no slm eval fixture is used, so `slm eval` measures conversations and notes
the encoder never saw.
"""

import json
import os
import random
import re
import sys

SEED = 20261207
# Document texts also fed in as query texts (the teacher's query vector of a statement): teaches
# the student statements as well as questions, since people ask in both forms.
DOCS_AS_QUERIES = 5000

SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")


def sentences(ctx):
    """(start, end, text) of each sentence of a paragraph."""
    out, pos = [], 0
    for part in SENT.split(ctx):
        start = ctx.find(part, pos)
        out.append((start, start + len(part), part.strip()))
        pos = start + len(part)
    return out


def squad(path, tag, docs, queries):
    data = json.load(open(path))["data"]
    for a, art in enumerate(data):
        for p, para in enumerate(art["paragraphs"]):
            sents = sentences(para["context"])
            ids = []
            for s, (_, _, text) in enumerate(sents):
                did = f"squad:{tag}:{a}:{p}:{s}"
                docs[did] = {"id": did, "text": text, "src": "squad", "group": f"squad:{tag}:{a}"}
                ids.append(did)
            for qa in para["qas"]:
                pos = set()
                for ans in qa.get("answers", []):
                    st = ans["answer_start"]
                    for s, (b, e, _) in enumerate(sents):
                        if b <= st < e:
                            pos.add(ids[s])
                queries.append({"id": f"squad:{qa['id']}", "text": qa["question"].strip(),
                                "src": "squad", "group": f"squad:{tag}:{a}", "pos": sorted(pos)})


def friends(path, tag, docs, queries):
    data = json.load(open(path))["data"]
    for e, ep in enumerate(data):
        for p, para in enumerate(ep["paragraphs"]):
            ids = []
            for u in para["utterances:"]:
                words = re.sub(r"\s+([.,!?;:'])", r"\1", u["utterance"]).strip()
                who = " and ".join(s.split()[0] for s in u["speakers"]) or "Someone"
                did = f"friends:{tag}:{e}:{p}:{u['uid']}"
                docs[did] = {"id": did, "text": f"{who}: {words}", "src": "friendsqa",
                             "group": f"friends:{tag}:{e}"}
                ids.append(did)
            for qa in para["qas"]:
                pos = sorted({ids[a["utterance_id"]] for a in qa["answers"]
                              if 0 <= a["utterance_id"] < len(ids)})
                q = re.sub(r"\s+([?.,])", r"\1", qa["question"]).strip()
                queries.append({"id": f"friends:{tag}:{qa['id']}:{e}:{p}", "text": q,
                                "src": "friendsqa", "group": f"friends:{tag}:{e}", "pos": pos})


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    docs, queries = {}, []
    squad(os.path.join(src, "dev-v2.0.json"), "dev", docs, queries)
    squad(os.path.join(src, "test-v2.0.json"), "test", docs, queries)
    friends(os.path.join(src, "friendsqa_dev.json"), "dev", docs, queries)
    friends(os.path.join(src, "friendsqa_tst.json"), "tst", docs, queries)
    # Documents that are long enough to mean something, as query texts too.
    rng = random.Random(SEED)
    pool = [d for d in docs.values() if len(d["text"].split()) >= 4]
    for d in rng.sample(pool, min(DOCS_AS_QUERIES, len(pool))):
        queries.append({"id": "asq:" + d["id"], "text": d["text"].split(": ", 1)[-1]
                        if d["src"] == "friendsqa" else d["text"], "src": d["src"] + "-statement",
                        "group": d["group"], "pos": []})
    seen, uniq = set(), []
    for q in queries:
        if q["text"] and q["text"] not in seen:
            seen.add(q["text"])
            uniq.append(q)
    with open(os.path.join(out, "queries.jsonl"), "w") as f:
        for q in uniq:
            f.write(json.dumps(q) + "\n")
    with open(os.path.join(out, "docs.jsonl"), "w") as f:
        for d in docs.values():
            f.write(json.dumps(d) + "\n")
    by = {}
    for q in uniq:
        by[q["src"]] = by.get(q["src"], 0) + 1
    print(f"{len(uniq)} query texts {by}; {sum(1 for q in uniq if q['pos'])} with evidence; "
          f"{len(docs)} documents")


if __name__ == "__main__":
    main()
