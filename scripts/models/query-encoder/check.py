"""Check the exported encoder as slm runs it (int8 ONNX on ONNX Runtime) against the full
model's own query vectors, on the held-out groups train.py never trained on.

  python check.py FAST_DIR FULL_MODEL_DIR BUILT_DIR [--reference OUT.json]

Prints cosine to the full model's query vector, top-10 overlap over all documents, R@5 of
questions with evidence for both, and time per question (one at a time, 2 threads). With
--reference, writes a few questions with their vectors for src/embed/query.rs's test.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import teacher  # noqa: E402
import train  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fast")
    ap.add_argument("full")
    ap.add_argument("built")
    ap.add_argument("--reference")
    a = ap.parse_args()
    queries = train.rows(os.path.join(a.built, "queries.jsonl"))
    docs = train.rows(os.path.join(a.built, "docs.jsonl"))
    D = np.load(os.path.join(a.built, "teacher_docs.npy"))
    tq = np.load(os.path.join(a.built, "teacher_queries.npy"))
    doc_index = {d["id"]: i for i, d in enumerate(docs)}
    held = train.held_out_groups(queries)
    test = [(i, q) for i, q in enumerate(queries) if q["group"] in held]
    fast = teacher.embedder(a.fast)
    texts = [teacher.QUERY_PROMPT + q["text"] for _, q in test]
    S = fast(texts)
    T = tq[[i for i, _ in test]]
    cos = (S * T).sum(1)
    top_s = np.argsort(-(S @ D.T), axis=1)[:, :10]
    top_t = np.argsort(-(T @ D.T), axis=1)[:, :10]
    overlap = np.mean([len(set(a_) & set(b_)) / 10 for a_, b_ in zip(top_s, top_t)])
    hs = ht = n = 0
    for j, (_, q) in enumerate(test):
        if q["pos"]:
            n += 1
            pos = {doc_index[p] for p in q["pos"]}
            hs += bool(pos & set(top_s[j, :5]))
            ht += bool(pos & set(top_t[j, :5]))
    one = [teacher.QUERY_PROMPT + q["text"] for _, q in test[:200]]
    times = {}
    for name, dir_ in (("fast", a.fast), ("full", a.full)):
        e = teacher.embedder(dir_)
        e(one[:5])
        ts = []
        for t in one:
            t0 = time.perf_counter()
            e([t])
            ts.append((time.perf_counter() - t0) * 1000)
        times[name] = float(np.median(ts))
    out = {"held_out_texts": len(test), "cos_mean": float(cos.mean()),
           "cos_p10": float(np.percentile(cos, 10)), "top10_overlap": float(overlap),
           "evidence_questions": n, "fast_r@5": hs / max(n, 1), "full_r@5": ht / max(n, 1),
           "ms_per_question_p50": times}
    print(json.dumps(out))
    if a.reference:
        pick = [q for _, q in test if q["src"] == "squad"][:4] + \
               [q for _, q in test if q["src"] == "friendsqa"][:4]
        vecs = fast([teacher.QUERY_PROMPT + q["text"] for q in pick])
        json.dump({"about": "questions and the vectors the exported fast query encoder gives them "
                            "(scripts/models/query-encoder/check.py)",
                   "rows": [{"text": q["text"], "embedding": [round(float(x), 6) for x in v]}
                            for q, v in zip(pick, vecs)]},
                  open(a.reference, "w"))


if __name__ == "__main__":
    main()
