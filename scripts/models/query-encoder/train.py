"""Train the fast query encoder: EmbeddingGemma's own first K layers (of 24), its final norm,
pooling and dense head, fine-tuned so that a question lands where the full model puts it among
the documents the full model embedded.

  python train.py CHECKPOINT BUILT_DIR OUT_DIR [--layers K] [--epochs E] [--max-steps N]

Memories stay embedded by the full model; only questions go through this encoder. The loss has
three parts, all against frozen teacher vectors (teacher.py):
  copy:      1 - cos(student(q), teacher(q))                          every query text
  rank:      KL(softmax(teacher(q) . D / T) || softmax(student(q) . D / T)) over all documents D
             (the full model's own ranking of every document, as a soft target)
  evidence:  cross-entropy toward q's evidence documents over D        questions with evidence
The token embedding table is frozen (shared with the full model at run time). Groups (a SQuAD
article, a FriendsQA episode) are split 90/10 for a held-out check; fixed seeds.
Writes OUT_DIR/ckpt (the checkpoint layout graph.py builds from) and OUT_DIR/report.json.
"""

import argparse
import json
import math
import os
import random
import shutil
import time

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import save_file
from sentence_transformers import SentenceTransformer

QUERY_PROMPT = "task: search result | query: "
SEED = 20261207
HELD_OUT = 0.10
TEMP = 0.05
W_COPY, W_RANK, W_EVID = 1.0, 1.0, 0.5


def rows(path):
    return [json.loads(line) for line in open(path)]


def held_out_groups(queries):
    groups = sorted({q["group"] for q in queries})
    rng = random.Random(SEED)
    rng.shuffle(groups)
    return set(groups[: max(1, int(len(groups) * HELD_OUT))])


def truncate(model, k):
    auto = model[0].auto_model
    auto.layers = torch.nn.ModuleList(list(auto.layers)[:k])
    auto.config.num_hidden_layers = k
    auto.config.layer_types = list(auto.config.layer_types)[:k]
    return model


def encode(model, texts, grad):
    feats = model.tokenize([QUERY_PROMPT + t for t in texts])
    with torch.set_grad_enabled(grad):
        out = model(feats)
    return F.normalize(out["sentence_embedding"], dim=-1)


def evaluate(model, qs, tq, D, doc_index, k=5):
    model.eval()
    cos, hit_s, hit_t, overlap, n_ev = [], 0, 0, [], 0
    with torch.inference_mode():
        for i in range(0, len(qs), 128):
            batch = qs[i : i + 128]
            s = encode(model, [q["text"] for q in batch], False)
            t = tq[[q["row"] for q in batch]]
            cos.extend(F.cosine_similarity(s, t).tolist())
            top_s = (s @ D.T).topk(10, dim=-1).indices
            top_t = (t @ D.T).topk(10, dim=-1).indices
            for j, q in enumerate(batch):
                overlap.append(len(set(top_s[j].tolist()) & set(top_t[j].tolist())) / 10)
                if q["pos"]:
                    n_ev += 1
                    pos = {doc_index[p] for p in q["pos"]}
                    hit_s += bool(pos & set(top_s[j, :k].tolist()))
                    hit_t += bool(pos & set(top_t[j, :k].tolist()))
    model.train()
    return {"cos_mean": float(np.mean(cos)), "cos_p10": float(np.percentile(cos, 10)),
            "top10_overlap": float(np.mean(overlap)), "evidence_questions": n_ev,
            f"student_r@{k}": hit_s / max(n_ev, 1), f"teacher_r@{k}": hit_t / max(n_ev, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ckpt")
    ap.add_argument("built")
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--epochs", type=float, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--minutes", type=float, default=0,
                    help="time budget: after the first steps, the schedule is cut to fit it")
    a = ap.parse_args()
    torch.manual_seed(SEED)
    random.seed(SEED)
    torch.set_num_threads(a.threads)

    queries = rows(os.path.join(a.built, "queries.jsonl"))
    docs = rows(os.path.join(a.built, "docs.jsonl"))
    tq = torch.from_numpy(np.load(os.path.join(a.built, "teacher_queries.npy")))
    D = torch.from_numpy(np.load(os.path.join(a.built, "teacher_docs.npy")))
    doc_index = {d["id"]: i for i, d in enumerate(docs)}
    for i, q in enumerate(queries):
        q["row"] = i
    held = held_out_groups(queries)
    train = [q for q in queries if q["group"] not in held]
    test = [q for q in queries if q["group"] in held]
    # The held-out groups' documents stay in D (they are the search space), but the held-out
    # questions are never trained on.
    print(f"train {len(train)} / held out {len(test)} query texts; {len(docs)} documents", flush=True)

    model = truncate(SentenceTransformer(a.ckpt, device="cpu"), a.layers)
    model[0].max_seq_length = 64
    auto = model[0].auto_model
    auto.embed_tokens.weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    print(f"trainable {sum(p.numel() for p in params) / 1e6:.1f} M parameters", flush=True)
    probe = test[:: max(1, len(test) // 400)]
    base = evaluate(model, probe, tq, D, doc_index)
    print("before (held-out probe)", json.dumps(base), flush=True)

    steps_per_epoch = math.ceil(len(train) / a.batch)
    total = int(steps_per_epoch * a.epochs)
    if a.max_steps:
        total = min(total, a.max_steps)
    opt = torch.optim.AdamW(params, lr=a.lr, weight_decay=0.01)
    plan = {"total": total}
    warm = max(1, min(total // 20, 30))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm)
        * 0.5 * (1 + math.cos(math.pi * min(s, plan["total"]) / plan["total"])))
    model.train()
    rng = random.Random(SEED)
    step, t0 = 0, time.time()
    while step < plan["total"]:
        order = train[:]
        rng.shuffle(order)
        for i in range(0, len(order), a.batch):
            if step >= plan["total"]:
                break
            batch = order[i : i + a.batch]
            s = encode(model, [q["text"] for q in batch], True)
            t = tq[[q["row"] for q in batch]]
            copy = (1 - (s * t).sum(-1)).mean()
            ls, lt = (s @ D.T) / TEMP, (t @ D.T) / TEMP
            rank = F.kl_div(F.log_softmax(ls, -1), F.log_softmax(lt, -1), log_target=True,
                            reduction="batchmean")
            ev = [(j, doc_index[q["pos"][0]]) for j, q in enumerate(batch) if q["pos"]]
            evid = (F.cross_entropy(ls[[j for j, _ in ev]], torch.tensor([d for _, d in ev]))
                    if ev else torch.zeros(()))
            loss = W_COPY * copy + W_RANK * rank + W_EVID * evid
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            step += 1
            if step == 8 and a.minutes:
                fit = int(a.minutes * 60 / ((time.time() - t0) / step))
                if fit < plan["total"]:
                    print(f"time budget: {fit} steps instead of {plan['total']}", flush=True)
                    plan["total"] = max(fit, step + 1)
            if step % 25 == 0 or step == 1:
                el = time.time() - t0
                print(f"step {step}/{plan['total']} loss {loss.item():.4f} copy {copy.item():.4f} "
                      f"rank {rank.item():.4f} evid {evid.item():.4f} {el / step:.2f} s/step", flush=True)
            if step % 150 == 0:
                print("held-out probe", json.dumps(evaluate(model, probe, tq, D, doc_index)), flush=True)
    final = evaluate(model, test, tq, D, doc_index)
    print("after", json.dumps(final), flush=True)

    # The checkpoint layout graph.py builds from: config with K layers, the student's tensors.
    out_ck = os.path.join(a.out, "ckpt")
    shutil.rmtree(out_ck, ignore_errors=True)
    os.makedirs(out_ck)
    for f in ("tokenizer.json", "tokenizer.model", "tokenizer_config.json", "special_tokens_map.json",
              "modules.json", "config_sentence_transformers.json", "sentence_bert_config.json"):
        if os.path.exists(os.path.join(a.ckpt, f)):
            shutil.copy(os.path.join(a.ckpt, f), out_ck)
    cfg = json.load(open(os.path.join(a.ckpt, "config.json")))
    cfg["num_hidden_layers"] = a.layers
    cfg["layer_types"] = cfg["layer_types"][: a.layers]
    json.dump(cfg, open(os.path.join(out_ck, "config.json"), "w"), indent=2)
    sd = {k: v.detach().contiguous() for k, v in auto.state_dict().items()}
    save_file(sd, os.path.join(out_ck, "model.safetensors"))
    shutil.copytree(os.path.join(a.ckpt, "1_Pooling"), os.path.join(out_ck, "1_Pooling"))
    for idx, name in ((2, "2_Dense"), (3, "3_Dense")):
        os.makedirs(os.path.join(out_ck, name))
        shutil.copy(os.path.join(a.ckpt, name, "config.json"), os.path.join(out_ck, name))
        w = model[idx].linear.weight.detach().contiguous()
        save_file({"linear.weight": w}, os.path.join(out_ck, name, "model.safetensors"))
    json.dump({"layers": a.layers, "epochs": a.epochs, "steps": step, "lr": a.lr,
               "batch": a.batch, "seed": SEED, "train_texts": len(train), "held_out_texts": len(test),
               "before": base, "after": final, "minutes": (time.time() - t0) / 60},
              open(os.path.join(a.out, "report.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
