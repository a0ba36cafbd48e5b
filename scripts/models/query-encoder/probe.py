"""How much of the teacher's question vector a shallow EmbeddingGemma holds: a ridge map from
the mean-pooled states of layer K (2, 4, 6, 8; the final norm applied) to the teacher's vector,
fitted on every third training text and scored on every fourth held-out one (the groups of
train.py). Prints K, the ridge strength, mean cosine to the teacher, and R@5 of the map and of
the teacher over all documents.

  python probe.py CHECKPOINT BUILT_DIR

Measured 2026-12-07 (docs/models.md): cosine 0.59 / 0.59 / 0.60 / 0.62, R@5 0.59 / 0.54 / 0.59 /
0.62 against the teacher's 0.77; 9 min for the features on 2 cores.
"""
import json, sys, time, numpy as np, torch, torch.nn.functional as F
sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
import train
from sentence_transformers import SentenceTransformer
torch.set_num_threads(1)
ck, built = sys.argv[1], sys.argv[2]
qs = train.rows(built + '/queries.jsonl')
tq = np.load(built + '/teacher_queries.npy')
D = np.load(built + '/teacher_docs.npy')
docs = train.rows(built + '/docs.jsonl'); di = {d['id']: i for i, d in enumerate(docs)}
held = train.held_out_groups(qs)
tr = [i for i, q in enumerate(qs) if q['group'] not in held][::3]
te = [i for i, q in enumerate(qs) if q['group'] in held][::4]
m = SentenceTransformer(ck, device='cpu'); m.eval()
a = m[0].auto_model
a.layers = torch.nn.ModuleList(list(a.layers)[:8]); a.config.num_hidden_layers = 8; a.config.layer_types = list(a.config.layer_types)[:8]
KS = [2, 4, 6, 8]
def feats(idx):
    out = {k: [] for k in KS}
    for s in range(0, len(idx), 64):
        b = [train.QUERY_PROMPT + qs[i]['text'] for i in idx[s:s+64]]
        f = m.tokenize(b)
        with torch.inference_mode():
            o = a(input_ids=f['input_ids'], attention_mask=f['attention_mask'], output_hidden_states=True)
        mask = f['attention_mask'].unsqueeze(-1).float()
        for k in KS:
            h = o.hidden_states[k]
            if k < 8: h = a.norm(h)
            p = (h * mask).sum(1) / mask.sum(1)
            out[k].append(p.numpy())
    return {k: np.concatenate(v) for k, v in out.items()}
torch.set_grad_enabled(False)
t = time.time(); Xtr = feats(tr); Xte = feats(te); print('features', time.time() - t, len(tr), len(te), flush=True)
Ytr, Yte = tq[tr], tq[te]
for k in KS:
    X = np.hstack([Xtr[k], np.ones((len(tr), 1))]); Xt = np.hstack([Xte[k], np.ones((len(te), 1))])
    mu, sd = X.mean(0), X.std(0) + 1e-6; sd[-1] = 1; mu[-1] = 0
    Xn, Xtn = (X - mu) / sd, (Xt - mu) / sd
    for lam in [1.0, 10.0, 100.0]:
        W = np.linalg.solve(Xn.T @ Xn + lam * np.eye(Xn.shape[1]), Xn.T @ Ytr)
        P = Xtn @ W; P /= np.linalg.norm(P, axis=1, keepdims=True)
        cos = (P * Yte).sum(1).mean()
        ts = np.argsort(-(P @ D.T), 1)[:, :5]; tt = np.argsort(-(Yte @ D.T), 1)[:, :5]
        hs = ht = n = 0
        for j, i in enumerate(te):
            if qs[i]['pos']:
                n += 1; pos = {di[p] for p in qs[i]['pos']}
                hs += bool(pos & set(ts[j])); ht += bool(pos & set(tt[j]))
        print(k, lam, round(float(cos), 3), 'r@5', round(hs / n, 3), round(ht / n, 3), n, flush=True)
