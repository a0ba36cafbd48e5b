"""The teacher's vectors: EmbeddingGemma-300M exactly as slm runs it (the int8 graph setup
builds, on ONNX Runtime), each query text with slm's query prompt and each document with its
document prompt: the student learns the vectors stored memories are really searched with.

  python teacher.py MODEL_DIR BUILT_DIR

MODEL_DIR is the installed model (~/.cache/slm/models/embeddinggemma-300m-int8). Writes
BUILT_DIR/teacher_queries.npy and teacher_docs.npy (float32, unit length, rows in the order of
queries.jsonl / docs.jsonl). Deterministic; ~12 min on 2 cores for 25k + 12k texts.
"""

import json
import os
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

# slm's prompts (scripts/models/embeddinggemma/setup.sh, slm-model.json).
QUERY_PROMPT = "task: search result | query: "
DOC_PROMPT = "title: none | text: "
MAX_LEN = 512
BATCH = 16


def rows(path):
    return [json.loads(line) for line in open(path)]


def embedder(model_dir):
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), so,
                                providers=["CPUExecutionProvider"])

    def embed(texts):
        ids = [tok.encode(t).ids[:MAX_LEN] for t in texts]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out = np.zeros((len(ids), 768), dtype=np.float32)
        for s in range(0, len(order), BATCH):
            chunk = order[s : s + BATCH]
            n = max(len(ids[i]) for i in chunk)
            x = np.zeros((len(chunk), n), dtype=np.int64)
            m = np.zeros((len(chunk), n), dtype=np.int64)
            for r, i in enumerate(chunk):
                x[r, : len(ids[i])] = ids[i]
                m[r, : len(ids[i])] = 1
            v = sess.run(["sentence_embedding"], {"input_ids": x, "attention_mask": m})[0]
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            out[chunk] = v
        return out

    return embed


def main():
    model_dir, built = sys.argv[1], sys.argv[2]
    embed = embedder(model_dir)
    for name, prompt, out in (("docs", DOC_PROMPT, "teacher_docs.npy"),
                              ("queries", QUERY_PROMPT, "teacher_queries.npy")):
        dst = os.path.join(built, out)
        if os.path.exists(dst):
            continue
        texts = [prompt + r["text"] for r in rows(os.path.join(built, name + ".jsonl"))]
        t0 = time.time()
        vecs = embed(texts)
        np.save(dst + ".tmp.npy", vecs)
        os.replace(dst + ".tmp.npy", dst)
        print(f"{name}: {len(texts)} texts in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
