"""Distil a fine-tuned 12-layer reader (train_top.py's output) into a 6-layer student:
the student starts from every other layer of the teacher and learns the teacher's logits
(MSE) with the labels beside them (BCE), on the same training pairs.

  distill.py --base BASE_DIR --teacher TEACHER_DIR --data DATA_DIR --out OUT_DIR
             [--layers 1,3,5,7,9,11] [--epochs 1] [--alpha 0.5] [--max-minutes 40]
"""

import argparse
import json
import math
import os
import random
import time

import numpy as np
import torch

from train import Progress, apply, finish, distill_loss, encode, load_tokenizer, make_student, torch_logits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--teacher", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", default="1,3,5,7,9,11")
    ap.add_argument("--epochs", type=float, default=1)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--alpha", type=float, default=0.5, help="weight of the label BCE beside the logit MSE")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--max-minutes", type=float, default=40)
    args = ap.parse_args()
    torch.set_num_threads(2)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    from transformers import BertForSequenceClassification

    tok = load_tokenizer(args.base)
    teacher = BertForSequenceClassification.from_pretrained(args.teacher).eval()
    rows = [json.loads(line) for line in open(os.path.join(args.data, "train.jsonl"))]
    os.makedirs(args.out, exist_ok=True)
    cache = os.path.join(args.out, "teacher_logits.npy")
    t0 = time.time()
    if os.path.exists(cache):
        tl = np.load(cache)
    else:
        tl = torch_logits(teacher, tok, [(r["q"], r["m"]) for r in rows])
        np.save(cache, tl)
    print(f"teacher logits for {len(rows)} pairs in {(time.time() - t0) / 60:.1f} min "
          f"(mean {tl.mean():.2f}, sd {tl.std():.2f})", flush=True)
    layers = tuple(int(x) for x in args.layers.split(","))
    model = make_student(teacher, layers)
    del teacher
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    total = int(math.ceil(len(rows) / args.bs) * args.epochs)
    warm = max(1, int(0.06 * total))
    t1 = time.time()

    def factor(s):
        prog = max(s / total, (time.time() - t1) / 60 / args.max_minutes)
        return min((s + 1) / warm, max(0.0, (1 - prog) / (1 - 0.06)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    rng = random.Random(args.seed)
    step = 0
    progress = Progress(total, args.bs, every=20)
    model.train()
    stop = False
    while step < total and not stop:
        idx = list(range(len(rows)))
        rng.shuffle(idx)
        batches = []
        for c in range(0, len(idx), args.bs * 50):
            part = sorted(idx[c: c + args.bs * 50], key=lambda i: len(rows[i]["q"]) + len(rows[i]["m"]))
            batches += [part[b: b + args.bs] for b in range(0, len(part), args.bs)]
        rng.shuffle(batches)
        for b in batches:
            if step >= total:
                break
            enc = {k: torch.from_numpy(v) for k, v in encode(tok, [(rows[i]["q"], rows[i]["m"]) for i in b]).items()}
            y = torch.tensor([float(rows[i]["y"]) for i in b])
            t = torch.from_numpy(tl[b])
            s = model(**enc).logits[:, 0]
            loss = distill_loss(s, t, y, args.alpha)
            apply(loss, params, opt, sched)
            step += 1
            progress(step, loss.item())
            if (time.time() - t1) / 60 > args.max_minutes:
                print("time budget reached, stopping", flush=True)
                stop = True
                break
    finish(model, args, t1, step, t0)


if __name__ == "__main__":
    main()
