"""Distil the 12-layer reader (train_top.py's output, the teacher) into a 6-layer student that
is trained the way train_top.py trains: the student's lower layers are the base's own first
layers, frozen, their output cached once; only its upper layers, pooler and classifier train,
on the teacher's logits (MSE) with the labels beside them (BCE).

  distill_top.py --base BASE_DIR --teacher TEACHER_DIR --data DATA_DIR --out OUT_DIR
                 [--frozen 3] [--init 9,10,11] [--epochs 3] [--alpha 0.5]

The student has `frozen` + len(init) layers: the base's layers 0..frozen-1 (which are also the
teacher's: train_top.py froze its lower half), then copies of the teacher's layers `init`
(0-based), which carry what the teacher learnt about answering. Training only the upper half on
cached states runs several times faster on a CPU without bf16 than training the whole student
(distill.py), so a few epochs fit in minutes. Writes OUT_DIR/final (save_pretrained; export.py
and evaluate.py read it) and OUT_DIR/train_log.json.
"""

import argparse
import json
import math
import os
import random
import time

import numpy as np
import torch

from train import Progress, apply, finish, distill_loss, bert_config, load_teacher, load_tokenizer, torch_logits
from train_top import cache_lower, epoch_batches, padded, upper, upper_params


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--teacher", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--frozen", type=int, default=3)
    ap.add_argument("--init", default="9,10,11", help="teacher layers (0-based) the trained layers start from")
    ap.add_argument("--epochs", type=float, default=3)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--alpha", type=float, default=0.5, help="weight of the label BCE beside the logit MSE")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--max-minutes", type=float, default=45)
    args = ap.parse_args()
    torch.set_num_threads(2)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    from transformers import BertForSequenceClassification

    tok = load_tokenizer(args.base)
    base = load_teacher(args.base)
    teacher = BertForSequenceClassification.from_pretrained(args.teacher).eval()
    rows = [json.loads(line) for line in open(os.path.join(args.data, "train.jsonl"))]
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    cache_path = os.path.join(args.out, "teacher_logits.npy")
    if os.path.exists(cache_path):
        tl = np.load(cache_path)
    else:
        tl = torch_logits(teacher, tok, [(r["q"], r["m"]) for r in rows])
        np.save(cache_path, tl)
    print(f"teacher logits for {len(rows)} pairs in {(time.time() - t0) / 60:.1f} min "
          f"(mean {tl.mean():.2f}, sd {tl.std():.2f})", flush=True)

    k = args.frozen
    init = [int(x) for x in args.init.split(",")]
    student = BertForSequenceClassification(bert_config(k + len(init)))
    bsd, tsd = base.state_dict(), teacher.state_dict()
    ssd = {}
    for name, v in tsd.items():
        if ".encoder.layer." not in name:
            ssd[name] = v.clone()  # embeddings (the base's: frozen in the teacher), pooler, classifier
    for j in range(k):
        for name, v in bsd.items():
            if f".encoder.layer.{j}." in name:
                ssd[name] = v.clone()
    for j, i in enumerate(init):
        for name, v in tsd.items():
            if f".encoder.layer.{i}." in name:
                ssd[name.replace(f".encoder.layer.{i}.", f".encoder.layer.{k + j}.")] = v.clone()
    missing, unexpected = student.load_state_dict(ssd, strict=False)
    missing = [m for m in missing if not m.endswith("position_ids")]
    assert not missing and not unexpected, (missing, unexpected)
    del base, teacher
    student.eval()

    t1 = time.time()
    cache = cache_lower(student, tok, rows, k)
    print(f"cached layer-{k} states in {(time.time() - t1) / 60:.1f} min", flush=True)
    params = upper_params(student, k)
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    total = int(math.ceil(len(rows) / args.bs) * args.epochs)
    warm = max(1, int(0.06 * total))
    t2 = time.time()

    def factor(s):
        prog = max(s / total, (time.time() - t2) / 60 / args.max_minutes)
        return min((s + 1) / warm, max(0.0, (1 - prog) / (1 - 0.06)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    rng = random.Random(args.seed)
    step, stop = 0, False
    progress = Progress(total, args.bs, every=50)
    student.train()
    while step < total and not stop:
        for b in epoch_batches(cache, args.bs, rng):
            if step >= total:
                break
            h, am = padded(cache, b)
            y = torch.tensor([float(rows[i]["y"]) for i in b])
            t = torch.from_numpy(tl[b])
            s = upper(student, h, am, k)
            loss = distill_loss(s, t, y, args.alpha)
            apply(loss, params, opt, sched)
            step += 1
            progress(step, loss.item())
            if (time.time() - t2) / 60 > args.max_minutes:
                print("time budget reached, stopping", flush=True)
                stop = True
                break
    finish(student, args, t2, step, t0)


if __name__ == "__main__":
    main()
