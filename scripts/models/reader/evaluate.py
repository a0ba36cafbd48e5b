"""Evaluate a reader model (torch checkpoint dir or ONNX file) on answerability.

  evaluate.py --base BASE_DIR --model {teacher | CKPT_DIR | model.onnx} [--fold A] [--dev DATA/dev.jsonl] [--json OUT]

All figures are ROC AUC of the model's logit:
  notes-dev / notes-holdout   answerable question + its answering note (pos) vs unanswerable question + closest
                              note (neg). "Closest" = highest BM25 note (EmbeddingGemma is not used here).
  notes-*-strict              every answerable question: answering note (pos) vs top non-answering note by BM25 (neg).
  locomo-heldout              held-out conversations, categories 1-4: each evidence turn (pos) vs the closest
                              non-evidence turn by BM25 (neg); with and without the published audit corrections.
  locomo-adversarial          held-out conversations: evidence turns of categories 1-4 (pos) vs the "evidence"
                              turns of category-5 adversarial questions (neg).
  demo                        the six demo pairs, logits printed.
The suggested threshold maximises balanced accuracy on --dev (build_data.py's dev split: SQuAD/CAsT/FriendsQA/
synthetic held-out groups; no notes fixture and no LoCoMo).
"""

import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from build_data import BM25, FOLDS, LOCOMO, LOCOMO_AUDIT, locomo_convs  # noqa: E402
from train import auc, encode, load_tokenizer  # noqa: E402

FIX = os.path.join(HERE, "..", "..", "..", "fixtures")
DEMO_MEM = ["We chose Postgres for the analytics warehouse", "The staging database listens on port 5433",
            "Maria owns the billing service"]
DEMO = [("When is Maria's birthday?", DEMO_MEM[2], 0), ("What port does the production database use?", DEMO_MEM[1], 0),
        ("What is Maria's last name?", DEMO_MEM[2], 0), ("what port does staging db use", DEMO_MEM[1], 1),
        ("who owns billing?", DEMO_MEM[2], 1), ("Which database did we choose for analytics?", DEMO_MEM[0], 1)]


def notes_sets(path):
    d = json.load(open(path))
    notes = {n["id"]: n["text"] for n in d["notes"]}
    ids = list(notes)
    bm = BM25([notes[i] for i in ids])
    main, strict = [], []
    for q in d["questions"]:
        sc = bm.scores(q["q"])
        order = sorted(range(len(ids)), key=lambda j: -sc[j])
        if q["answers"]:
            main.append((q["q"], notes[q["answers"][0]], 1))
            strict.append((q["q"], notes[q["answers"][0]], 1))
            other = [ids[j] for j in order if ids[j] not in q["answers"]][0]
            strict.append((q["q"], notes[other], 0))
        else:
            main.append((q["q"], notes[ids[order[0]]], 0))
    return main, strict


def locomo_sets(held, audit):
    main, adv = [], []
    for sid, turns, qas in locomo_convs(LOCOMO, LOCOMO_AUDIT if audit else None):
        if sid not in held:
            continue
        ids = list(turns)
        bm = BM25([turns[i] for i in ids])
        for q, cat, ev in qas:
            if not ev:
                continue
            if cat == 5:
                for e in ev:
                    adv.append((q, turns[e], 0))
                continue
            sc = bm.scores(q)
            neg = [ids[j] for j in sorted(range(len(ids)), key=lambda j: -sc[j]) if ids[j] not in ev][0]
            for e in ev:
                main.append((q, turns[e], 1))
                adv.append((q, turns[e], 1))
            main.append((q, turns[neg], 0))
    return main, adv


class Scorer:
    def __init__(self, base, model):
        self.tok = load_tokenizer(base)
        self.kind = "onnx" if model.endswith(".onnx") else "torch"
        if self.kind == "onnx":
            import onnxruntime as ort

            so = ort.SessionOptions()
            so.intra_op_num_threads = 2
            self.sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        else:
            import torch

            torch.set_num_threads(2)
            if model == "teacher":
                from train import load_teacher

                self.model = load_teacher(base)
            else:
                from transformers import BertForSequenceClassification

                self.model = BertForSequenceClassification.from_pretrained(model).eval()

    def __call__(self, pairs, bs=32):
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out = np.empty(len(pairs), np.float32)
        for s in range(0, len(order), bs):
            idx = order[s: s + bs]
            enc = encode(self.tok, [(pairs[i][0], pairs[i][1]) for i in idx])
            if self.kind == "onnx":
                lg = self.sess.run(["logits"], enc)[0][:, 0]
            else:
                import torch

                with torch.no_grad():
                    lg = self.model(**{k: torch.from_numpy(v) for k, v in enc.items()}).logits[:, 0].numpy()
            out[idx] = lg
        return out


def score_auc(scorer, pairs):
    s = scorer([(q, m) for q, m, _ in pairs])
    y = np.array([p[2] for p in pairs])
    return auc(s[y == 1], s[y == 0]), int((y == 1).sum()), int((y == 0).sum())


def best_threshold(s, y):
    best = (0, 0.0)
    for t in np.unique(s):
        ba = 0.5 * ((s[y == 1] >= t).mean() + (s[y == 0] < t).mean())
        if ba > best[0]:
            best = (ba, float(t))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--fold", default="A", choices=["A", "B"])
    ap.add_argument("--dev")
    ap.add_argument("--json")
    args = ap.parse_args()
    sc = Scorer(args.base, args.model)
    held = FOLDS[args.fold][1]
    res = {"model": args.model, "fold": args.fold, "locomo_heldout": held}
    rows = []
    for name in ("notes-dev", "notes-holdout"):
        m, st = notes_sets(os.path.join(FIX, name + ".json"))
        rows.append((name, *score_auc(sc, m)))
        rows.append((name + "-strict", *score_auc(sc, st)))
    for audit in (False, True):
        m, adv = locomo_sets(set(held), audit)
        tag = "+audit" if audit else ""
        rows.append((f"locomo-heldout{tag}", *score_auc(sc, m)))
        rows.append((f"locomo-ev-vs-adversarial{tag}", *score_auc(sc, adv)))
    print(f"\nmodel: {args.model}  (LoCoMo held-out: {', '.join(held)})")
    print(f"{'set':34s} {'AUC':>6s} {'pos':>5s} {'neg':>5s}")
    for r in rows:
        print(f"{r[0]:34s} {r[1]:6.3f} {r[2]:5d} {r[3]:5d}")
        res[r[0]] = {"auc": r[1], "pos": r[2], "neg": r[3]}
    d = sc([(q, m) for q, m, _ in DEMO])
    print("demo pairs (want: low low low high high high):")
    res["demo"] = []
    for (q, m, y), v in zip(DEMO, d):
        print(f"  {v:7.2f}  {'HIGH' if y else 'low '}  {q!r} | {m!r}")
        res["demo"].append({"q": q, "m": m, "want": y, "logit": float(v)})
    res["demo_separated"] = bool(min(d[3:]) > max(d[:3]))
    print("  demo separated:", res["demo_separated"])
    if args.dev:
        dev = [json.loads(l) for l in open(args.dev)]
        s = sc([(x["q"], x["m"]) for x in dev])
        y = np.array([x["y"] for x in dev])
        ba, t = best_threshold(s, y)
        res["dev_auc"] = auc(s[y == 1], s[y == 0])
        res["threshold"] = {"logit": t, "balanced_accuracy": ba}
        print(f"dev split AUC {res['dev_auc']:.3f}; suggested threshold logit {t:.3f} (balanced acc {ba:.3f})")
        # Leave one source out: the best threshold on the other sources, for each source; the
        # shipped ANSWERS_AT is their mean (no notes fixture, no LoCoMo figure chooses it).
        src = np.array([x["src"].split("-")[0] for x in dev])
        loso = {}
        for held in sorted(set(src)):
            _, t_other = best_threshold(s[src != held], y[src != held])
            loso[held] = t_other
        res["threshold_loso"] = {"per_source": loso, "mean": float(np.mean(list(loso.values())))}
        print(f"  leave-one-source-out thresholds {loso}; mean {res['threshold_loso']['mean']:.3f}")
        ms = np.array([x["src"] == "synthetic" for x in dev])
        ba2, t2 = best_threshold(s[ms], y[ms])
        res["threshold_synthetic_dev"] = {"logit": t2, "balanced_accuracy": ba2}
        print(f"  on its synthetic (slm-shaped) part only: threshold {t2:.3f} (balanced acc {ba2:.3f})")
    if sc.kind == "onnx":
        enc = encode(sc.tok, [("what port does the staging database use for connections",
                               "The staging database listens on port 5433 and the production one on 5432. " * 3)] * 3)
        enc = {k: v[:, :64].copy() for k, v in enc.items()}
        for _ in range(5):
            sc.sess.run(["logits"], enc)
        ts = []
        for _ in range(50):
            t0 = time.perf_counter()
            sc.sess.run(["logits"], enc)
            ts.append((time.perf_counter() - t0) * 1000)
        res["latency_ms_3x64_2threads"] = {"median": float(np.median(ts)), "p90": float(np.percentile(ts, 90))}
        print(f"latency 3 pairs x 64 tokens, 2 threads: median {np.median(ts):.1f} ms, p90 {np.percentile(ts, 90):.1f} ms")
        res["onnx_size_mb"] = os.path.getsize(args.model) / 1e6
    if args.json:
        json.dump(res, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
