"""Fine-tune the top layers of the full 12-layer ms-marco cross-encoder for answerability,
training on cached hidden states of its frozen lower layers (a CPU without bf16 trains the
top half about 3x faster this way than the whole model, and the model starts from the
base's own ranking instead of a pruned copy of it).

  train_top.py --base BASE_DIR --data DATA_DIR --out OUT_DIR [--freeze 6] [--epochs 2]

The result is a full BertForSequenceClassification (save_pretrained), usable by
evaluate.py --model OUT_DIR/final and as the teacher for distill.py.
"""

import argparse
import json
import math
import os
import random
import time

import numpy as np
import torch

from train import encode, load_teacher, load_tokenizer


def masks(model, am, h):
    return model.bert._create_attention_masks(am, None, h, None, None, None)[0]


def lower(model, enc, k):
    """Hidden states after the first k layers (eval mode, no grad)."""
    with torch.no_grad():
        h = model.bert.embeddings(input_ids=enc["input_ids"], token_type_ids=enc["token_type_ids"])
        m = masks(model, enc["attention_mask"], h)
        for layer in model.bert.encoder.layer[:k]:
            h = layer(h, m)
    return h


def upper(model, h, am, k):
    m = masks(model, am, h)
    for layer in model.bert.encoder.layer[k:]:
        h = layer(h, m)
    return model.classifier(model.dropout(model.bert.pooler(h)))[:, 0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--freeze", type=int, default=6, help="lower layers kept frozen (and cached)")
    ap.add_argument("--epochs", type=float, default=2)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--seed", type=int, default=17)
    args = ap.parse_args()
    torch.set_num_threads(2)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    tok = load_tokenizer(args.base)
    model = load_teacher(args.base)
    k = args.freeze
    # the split forward must equal the model's own forward
    probe = {n: torch.from_numpy(v) for n, v in encode(tok, [("who owns billing?", "Maria owns the billing service"),
                                                             ("when is her birthday", "Maria owns billing")]).items()}
    with torch.no_grad():
        a = model(**probe).logits[:, 0]
        b = upper(model, lower(model, probe, k), probe["attention_mask"], k)
    assert torch.allclose(a, b, atol=1e-4), (a, b)

    rows = [json.loads(line) for line in open(os.path.join(args.data, "train.jsonl"))]
    t0 = time.time()
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]["q"]) + len(rows[i]["m"]))
    cache = [None] * len(rows)
    for s in range(0, len(order), 64):
        idx = order[s: s + 64]
        enc = {n: torch.from_numpy(v) for n, v in encode(tok, [(rows[i]["q"], rows[i]["m"]) for i in idx]).items()}
        h = lower(model, enc, k)
        for j, i in enumerate(idx):
            n = int(enc["attention_mask"][j].sum())
            cache[i] = h[j, :n].to(torch.bfloat16).clone()
    print(f"cached layer-{k} states of {len(rows)} pairs in {(time.time() - t0) / 60:.1f} min", flush=True)

    for p in model.parameters():
        p.requires_grad_(False)
    train_params = [p for layer in model.bert.encoder.layer[k:] for p in layer.parameters()]
    train_params += list(model.bert.pooler.parameters()) + list(model.classifier.parameters())
    for p in train_params:
        p.requires_grad_(True)
    opt = torch.optim.AdamW(train_params, lr=args.lr, weight_decay=0.01)
    total = int(math.ceil(len(rows) / args.bs) * args.epochs)
    warm = max(1, int(0.06 * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / (total - warm))))
    rng = random.Random(args.seed)
    step, t1, run = 0, time.time(), None
    model.train()
    while step < total:
        idx = list(range(len(rows)))
        rng.shuffle(idx)
        batches = []
        for c in range(0, len(idx), args.bs * 50):
            part = sorted(idx[c: c + args.bs * 50], key=lambda i: cache[i].shape[0])
            batches += [part[b: b + args.bs] for b in range(0, len(part), args.bs)]
        rng.shuffle(batches)
        for b in batches:
            if step >= total:
                break
            n = max(cache[i].shape[0] for i in b)
            h = torch.zeros(len(b), n, cache[b[0]].shape[1])
            am = torch.zeros(len(b), n, dtype=torch.long)
            for j, i in enumerate(b):
                h[j, : cache[i].shape[0]] = cache[i].float()
                am[j, : cache[i].shape[0]] = 1
            y = torch.tensor([float(rows[i]["y"]) for i in b])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(upper(model, h, am, k), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(train_params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            run = loss.item() if run is None else 0.98 * run + 0.02 * loss.item()
            if step % 20 == 0:
                el = time.time() - t1
                print(f"step {step}/{total} loss {run:.4f} {step * args.bs / el:.1f} pairs/s {el / 60:.1f} min",
                      flush=True)
    model.eval()
    model.save_pretrained(os.path.join(args.out, "final"))
    json.dump({"args": vars(args), "train_minutes": (time.time() - t1) / 60, "steps": step},
              open(os.path.join(args.out, "train_log.json"), "w"), indent=1)
    print("done", (time.time() - t0) / 60, "min", flush=True)


if __name__ == "__main__":
    main()
