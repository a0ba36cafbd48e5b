"""Check a built EmbeddingGemma ONNX graph (and its tokenizer.json) against the reference fixture.

  python verify.py --model model.onnx --fixture fixtures/embeddinggemma-reference.json \
      [--tokenizer tokenizer.json] --min-cos 0.999 [--min-mean-cos X]

Exit status 0 only if every row reaches --min-cos (cosine of the graph's sentence_embedding to
the fixture's torch vector), the output is L2-normalised, a padded batch gives the same vectors
as one-by-one runs (within --min-batch-cos), and (with --tokenizer) tokenizer.json reproduces every fixture's input_ids.
Prints one JSON line with the figures.
"""

import argparse
import json
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--tokenizer")
    ap.add_argument("--min-cos", type=float, required=True,
                    help="for rows the sliding window cannot affect (<= --window-tokens tokens)")
    ap.add_argument("--min-cos-long", type=float, default=0.99,
                    help="for longer rows: the fixture was made without the sliding window (see README)")
    ap.add_argument("--window-tokens", type=int, default=257)
    ap.add_argument("--min-mean-cos", type=float, default=0.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--min-batch-cos", type=float, default=0.9999,
                    help="padded batch vs one-by-one; dynamic int8 scales activations per batch, "
                         "so a text's vector moves slightly with its batch (0.998 measured)")
    a = ap.parse_args()

    import onnxruntime as ort

    fx = json.load(open(a.fixture))
    rows = fx["rows"]
    problems = []

    if a.tokenizer:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(a.tokenizer)
        for i, r in enumerate(rows):
            got = tok.encode(r["text"], add_special_tokens=True).ids
            if got != r["input_ids"]:
                problems.append(f"tokenizer: row {i} gives {got[:8]}..., fixture has {r['input_ids'][:8]}...")

    so = ort.SessionOptions()
    so.intra_op_num_threads = a.threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    ins = {i.name: (i.type, i.shape) for i in sess.get_inputs()}
    outs = {o.name: (o.type, o.shape) for o in sess.get_outputs()}
    if set(ins) != {"input_ids", "attention_mask"} or "sentence_embedding" not in outs:
        problems.append(f"interface: inputs {ins}, outputs {outs}")

    def run(ids_list):
        n = max(len(x) for x in ids_list)
        ids = np.zeros((len(ids_list), n), np.int64)
        m = np.zeros((len(ids_list), n), np.int64)
        for j, x in enumerate(ids_list):
            ids[j, : len(x)] = x
            m[j, : len(x)] = 1
        return sess.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": m})[0]

    cos, single = [], []
    for r in rows:
        v = run([r["input_ids"]])[0].astype(np.float64)
        ref = np.asarray(r["embedding"], np.float64)
        single.append(v)
        cos.append(float(v @ ref / (np.linalg.norm(v) * np.linalg.norm(ref))))
        if abs(np.linalg.norm(v) - 1.0) > 1e-3:
            problems.append(f"row output not L2-normalised (norm {np.linalg.norm(v):.4f})")
    cos = np.array(cos)
    lens = np.array([len(r["input_ids"]) for r in rows])
    for i, c in enumerate(cos):
        want = a.min_cos if lens[i] <= a.window_tokens else a.min_cos_long
        if not c >= want:
            problems.append(f"row {i} ({lens[i]} tokens) cosine {c:.5f} < {want}")
    if not cos.mean() >= a.min_mean_cos:
        problems.append(f"mean cosine {cos.mean():.5f} < {a.min_mean_cos}")

    # padded batch (right padding) must agree with single runs
    short = [r["input_ids"] for r in rows if len(r["input_ids"]) < 100]
    batch = run(short)
    sref = [s for s, r in zip(single, rows) if len(r["input_ids"]) < 100]
    bcos = min(float(b @ s / (np.linalg.norm(b) * np.linalg.norm(s))) for b, s in zip(batch, sref))
    if bcos < a.min_batch_cos:
        problems.append(f"padded batch differs from single runs (min cosine {bcos:.5f})")

    # similarity structure, for orientation: query 0 . document 4 (0.766 in the reference)
    ref_q0d4 = float(np.dot(rows[0]["embedding"], rows[4]["embedding"]))
    got_q0d4 = float(single[0] @ single[4])

    print(json.dumps({"model": a.model, "rows": len(rows), "min_cos": round(float(cos.min()), 6),
                      "mean_cos": round(float(cos.mean()), 6),
                      "short_rows_min_cos": round(float(cos[lens <= a.window_tokens].min()), 6),
                      "short_rows_mean_cos": round(float(cos[lens <= a.window_tokens].mean()), 6),
                      "per_row": [round(float(c), 5) for c in cos], "batch_vs_single_min_cos": round(bcos, 6),
                      "q0_d4": round(got_q0d4, 4), "q0_d4_reference": round(ref_q0d4, 4),
                      "tokenizer_checked": bool(a.tokenizer), "ok": not problems}))
    for p in problems:
        print("verify: " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
