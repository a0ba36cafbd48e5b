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

from train import Progress, apply, finish, encode, load_teacher, load_tokenizer


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


def cache_lower(model, tok, rows, k):
    """Layer-k states of every (q, m) pair in rows, unpadded, bf16 (computed once, in length order)."""
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]["q"]) + len(rows[i]["m"]))
    cache = [None] * len(rows)
    for s in range(0, len(order), 64):
        idx = order[s: s + 64]
        enc = {n: torch.from_numpy(v) for n, v in encode(tok, [(rows[i]["q"], rows[i]["m"]) for i in idx]).items()}
        h = lower(model, enc, k)
        for j, i in enumerate(idx):
            n = int(enc["attention_mask"][j].sum())
            cache[i] = h[j, :n].to(torch.bfloat16).clone()
    return cache


def upper_params(model, k):
    """Freeze everything but layers k.. , the pooler and the classifier; returns those."""
    for p in model.parameters():
        p.requires_grad_(False)
    params = [p for layer in model.bert.encoder.layer[k:] for p in layer.parameters()]
    params += list(model.bert.pooler.parameters()) + list(model.classifier.parameters())
    for p in params:
        p.requires_grad_(True)
    return params


def epoch_batches(cache, bs, rng):
    """One epoch's batches: shuffled, bucketed by length within runs of 50 batches, shuffled again."""
    idx = list(range(len(cache)))
    rng.shuffle(idx)
    batches = []
    for c in range(0, len(idx), bs * 50):
        part = sorted(idx[c: c + bs * 50], key=lambda i: cache[i].shape[0])
        batches += [part[b: b + bs] for b in range(0, len(part), bs)]
    rng.shuffle(batches)
    return batches


def padded(cache, b):
    """The cached states of batch b, zero-padded, with their attention mask."""
    n = max(cache[i].shape[0] for i in b)
    h = torch.zeros(len(b), n, cache[b[0]].shape[1])
    am = torch.zeros(len(b), n, dtype=torch.long)
    for j, i in enumerate(b):
        h[j, : cache[i].shape[0]] = cache[i].float()
        am[j, : cache[i].shape[0]] = 1
    return h, am


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
    cache = cache_lower(model, tok, rows, k)
    print(f"cached layer-{k} states of {len(rows)} pairs in {(time.time() - t0) / 60:.1f} min", flush=True)

    train_params = upper_params(model, k)
    opt = torch.optim.AdamW(train_params, lr=args.lr, weight_decay=0.01)
    total = int(math.ceil(len(rows) / args.bs) * args.epochs)
    warm = max(1, int(0.06 * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / (total - warm))))
    rng = random.Random(args.seed)
    step, t1 = 0, time.time()
    progress = Progress(total, args.bs, every=20)
    model.train()
    while step < total:
        for b in epoch_batches(cache, args.bs, rng):
            if step >= total:
                break
            h, am = padded(cache, b)
            y = torch.tensor([float(rows[i]["y"]) for i in b])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(upper(model, h, am, k), y)
            apply(loss, train_params, opt, sched)
            step += 1
            progress(step, loss.item())
    finish(model, args, t1, step, t0)


if __name__ == "__main__":
    main()
