"""Build (question, memory, label) pairs for the slm reader model.

Usage: build_data.py --fold A|B --out DIR
Reads sources listed in manifest.json from git mirrors (--mirror DIR, bare git
dirs named owner+name/repo[/.git]) and LoCoMo from /work/shared/data (never copied).
Writes DIR/train.jsonl and DIR/dev.jsonl and DIR/stats.json. Every article,
scene, conversation, query and generated note lies whole on one side of a split.
"""

import argparse
import collections
import csv
import hashlib
import io
import json
import math
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402

STOP = set(
    "a an the of to in on at for is are was were do does did what which who whom whose when where why "
    "how i you we our us my me it its this that be been with by from as and or not can should would "
    "will have has had any there their they he she his her about into than then so if".split()
)
LOCOMO = "/work/shared/data/locomo-dev.json"
LOCOMO_AUDIT = "/work/shared/data/locomo-dev-audit.json"
FOLDS = {"A": (["conv-26", "conv-41"], ["conv-30", "conv-42"]), "B": (["conv-30", "conv-42"], ["conv-26", "conv-41"])}


def toks(t):
    stem = lambda w: re.sub(r"(ing|ed|es|s)$", "", w) if len(w) > 4 else w  # noqa: E731
    return [stem(w) for w in re.findall(r"[a-z0-9]+", t.lower()) if w not in STOP]


class BM25:
    def __init__(self, docs, k1=1.2, b=0.75):
        self.docs = [toks(d) for d in docs]
        self.avg = sum(map(len, self.docs)) / max(1, len(self.docs))
        df = collections.Counter(w for d in self.docs for w in set(d))
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.tf = [collections.Counter(d) for d in self.docs]
        self.k1, self.b = k1, b

    def scores(self, q):
        qt = set(toks(q))
        out = []
        for tf, d in zip(self.tf, self.docs):
            s = 0.0
            for w in qt:
                if w in tf:
                    f = tf[w]
                    s += self.idf[w] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * len(d) / self.avg))
            out.append(s)
        return out


def git_show(gitdir, path, commit="HEAD"):
    r = subprocess.run(["git", "--git-dir", gitdir, "show", f"{commit}:{path}"], capture_output=True)
    if r.returncode != 0 and commit != "HEAD":
        return git_show(gitdir, path)
    r.check_returncode()
    return r.stdout


def gitdir_for(mirror, repo):
    base = os.path.join(mirror, repo.replace("/", "+"), "repo")
    return os.path.join(base, ".git") if os.path.isdir(os.path.join(base, ".git")) else base


# ---------------- SQuAD 2.0 dev ----------------
def split_sentences(text):
    spans, start = [], 0
    for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])", text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if b > a]


def squad_pairs(raw):
    out = []
    for art in json.loads(raw)["data"]:
        g = "squad:" + art["title"]
        for para in art["paragraphs"]:
            ctx = para["context"]
            sents = split_sentences(ctx)
            if len(sents) < 2:
                continue
            texts = [ctx[a:b].strip() for a, b in sents]
            bm = BM25(texts)

            def sid(pos):
                for i, (a, b) in enumerate(sents):
                    if a <= pos < b + 1:
                        return i
                return None

            for qa in para["qas"]:
                q = qa["question"].strip()
                if not q:
                    continue
                if qa.get("is_impossible"):
                    pl = qa.get("plausible_answers") or []
                    if pl:
                        i = sid(pl[0]["answer_start"])
                        if i is not None:
                            out.append({"q": q, "m": texts[i], "y": 0, "src": "squad-unanswerable", "group": g})
                    continue
                i = sid(qa["answers"][0]["answer_start"])
                if i is None:
                    continue
                ans = qa["answers"][0]["text"]
                out.append({"q": q, "m": texts[i], "y": 1, "src": "squad", "group": g})
                sc = bm.scores(q)
                order = sorted((j for j in range(len(texts)) if j != i and ans not in texts[j]), key=lambda j: -sc[j])
                for j in order[:2]:
                    out.append({"q": q, "m": texts[j], "y": 0, "src": "squad", "group": g})
    return out


# ---------------- CAsT-snippets sentence answerability ----------------
def cast_pairs(raw):
    out = []
    for r in csv.DictReader(io.StringIO(raw.decode("utf-8"))):
        q, _, m = r["sentences"].partition(" [SEP] ")
        q, m = q.strip(), m.strip().strip("'")
        if not q or not m:
            continue
        out.append({"q": q, "m": m, "y": int(r["labels"]), "src": "cast", "group": "cast:" + q, "partition": r["partition"]})
    return out


# ---------------- FriendsQA ----------------
def detok(t):
    t = re.sub(r" (n't|'s|'re|'m|'ll|'ve|'d)\b", r"\1", t)
    t = re.sub(r" ([.,!?;:])", r"\1", t)
    t = t.replace("gon na", "gonna").replace("wan na", "wanna")
    return t.strip()


def friends_pairs(raw, r):
    out = []
    for scene in json.loads(raw)["data"]:
        g = "friends:" + scene["title"]
        for para in scene["paragraphs"]:
            utts = para.get("utterances:") or para.get("utterances") or []
            texts = [", ".join(u["speakers"]) + ": " + detok(u["utterance"]) for u in utts]
            if len(texts) < 3:
                continue
            bm = BM25(texts)
            for qa in para["qas"]:
                q = detok(qa["question"])
                ans = {a["utterance_id"] for a in qa["answers"] if 0 <= a["utterance_id"] < len(texts)}
                if not ans:
                    continue
                for i in sorted(ans)[:2]:
                    out.append({"q": q, "m": texts[i], "y": 1, "src": "friendsqa", "group": g})
                sc = bm.scores(q)
                cand = [j for j in range(len(texts)) if j not in ans and len(texts[j]) > 12]
                negs = sorted(cand, key=lambda j: -sc[j])[:2]
                near = [j for j in cand if min(abs(j - a) for a in ans) <= 3 and j not in negs]
                if near:
                    negs.append(r.choice(near))
                for j in negs:
                    out.append({"q": q, "m": texts[j], "y": 0, "src": "friendsqa", "group": g})
    return out


# ---------------- LoCoMo (read in place, never copied) ----------------
def parse_evidence(ev):
    out, bad = [], 0
    for e in ev or []:
        for p in re.split(r"[;,\s]+", e):
            p = p.strip()
            if re.fullmatch(r"D\d+:\d+", p):
                out.append(p)
            elif p:
                bad += 1
    return out, bad


def locomo_convs(path=LOCOMO, audit=None):
    """Yield (sample_id, turns{dia_id: text}, [(question, category, [evidence ids])])."""
    corr = {}
    if audit:
        for a in json.load(open(audit)):
            if a.get("correct_evidence") is not None:
                corr[a["question_id"]] = a["correct_evidence"]
    res = []
    for ci, c in enumerate(json.load(open(path))):
        turns = {}
        for k, v in c["conversation"].items():
            if k.startswith("session_") and isinstance(v, list):
                for t in v:
                    txt = t["speaker"] + ": " + t["text"]
                    if t.get("blip_caption"):
                        txt += " [image: " + t["blip_caption"] + "]"
                    turns[t["dia_id"]] = txt
        qas = []
        for qi, qa in enumerate(c["qa"]):
            ev = corr.get(f"locomo_{ci}_qa{qi}", qa.get("evidence"))
            ids, _ = parse_evidence(ev)
            qas.append((qa["question"], qa["category"], [i for i in ids if i in turns]))
        res.append((c["sample_id"], turns, qas))
    return res


def locomo_train_pairs(convs, keep, r):
    out = []
    for sid, turns, qas in convs:
        if sid not in keep:
            continue
        ids = list(turns)
        bm = BM25([turns[i] for i in ids])
        for q, cat, ev in qas:
            if not ev:
                continue
            sc = bm.scores(q)
            order = sorted(range(len(ids)), key=lambda j: -sc[j])
            if cat == 5:
                for e in ev[:2]:
                    out.append({"q": q, "m": turns[e], "y": 0, "src": "locomo-adversarial", "group": "locomo:" + sid})
                continue
            for e in ev[:3]:
                out.append({"q": q, "m": turns[e], "y": 1, "src": "locomo", "group": "locomo:" + sid})
            negs = [ids[j] for j in order if ids[j] not in ev][:3]
            for n in negs:
                out.append({"q": q, "m": turns[n], "y": 0, "src": "locomo", "group": "locomo:" + sid})
    return out


# ---------------- near misses made from answering pairs ----------------
# The LoCoMo adversarial question is a real event asked of the wrong person ("What did Melanie
# find on her walk?" when Caroline found it) or with one detail changed (grandpa for grandma).
# The same shape is made here from any training pair whose memory answers: the question asks
# the same thing of another speaker of the same conversation or scene, or of another relative,
# and the memory (unchanged) no longer answers. Generic, not fitted to any held-out set.
KIN = [("grandma", "grandpa"), ("grandmother", "grandfather"), ("mom", "dad"), ("mother", "father"),
       ("brother", "sister"), ("husband", "wife"), ("son", "daughter"), ("boyfriend", "girlfriend"),
       ("aunt", "uncle"), ("niece", "nephew")]


def speaker_of(m):
    """The single speaker of a "Speaker: text" memory, or None."""
    head, sep, _ = m.partition(": ")
    if not sep or "," in head or len(head) > 40:
        return None
    first = head.split()[0]
    return first if re.fullmatch(r"[A-Z][a-z]+", first) else None


def word_in(w, text):
    return re.search(rf"\b{re.escape(w)}\b", text, re.I) is not None


def swap_negatives(pairs, r):
    speakers = collections.defaultdict(set)
    for p in pairs:
        s = speaker_of(p["m"])
        if s:
            speakers[p["group"]].add(s)
    out = []
    for p in pairs:
        if p["y"] != 1:
            continue
        q, m, s = p["q"], p["m"], speaker_of(p["m"])
        named = [n for n in speakers[p["group"]] if re.search(rf"\b{re.escape(n)}\b", q)]
        others = sorted(speakers[p["group"]] - {s}) if s else []
        if s and named == [s] and others:
            o = r.choice(others)
            out.append({"q": re.sub(rf"\b{re.escape(s)}\b", o, q), "m": m, "y": 0,
                        "src": p["src"] + "-swap", "group": p["group"]})
            continue
        for a, b in KIN:
            for x, y in ((a, b), (b, a)):
                if word_in(x, q) and word_in(x, m) and not word_in(y, m):
                    nq = re.sub(rf"\b{x}\b", y, q, flags=re.I)
                    out.append({"q": nq, "m": m, "y": 0, "src": p["src"] + "-kin", "group": p["group"]})
    return out


def split_groups(pairs, dev_frac, r):
    groups = sorted({p["group"] for p in pairs})
    r.shuffle(groups)
    dev = set(groups[: max(1, int(len(groups) * dev_frac))])
    return [p for p in pairs if p["group"] not in dev], [p for p in pairs if p["group"] in dev]


def cap(pairs, n, r):
    pairs = list(pairs)
    r.shuffle(pairs)
    return pairs[:n]


def check_fixture_entities():
    text = ""
    for f in ("notes-dev.json", "notes-holdout.json"):
        p = os.path.join(HERE, "..", "..", "..", "fixtures", f)
        if os.path.exists(p):
            d = json.load(open(p))
            text += " ".join(n["text"] for n in d["notes"]) + " " + " ".join(q["q"] for q in d["questions"])
    words = set(re.findall(r"[A-Za-z][A-Za-z0-9-]+", text))
    clash = sorted(n for n in fixtures.proper_nouns() if n in words)
    assert not clash, f"synthetic entities clash with evaluation notes: {clash}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fold", default="A", choices=["A", "B"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()
    r = random.Random(args.seed)
    manifest = json.load(open(os.path.join(HERE, "manifest.json")))
    srcs = {s["name"]: s for s in manifest["sources"]}
    stats = {}

    def load(name):
        s = srcs[name]
        gd = gitdir_for(args.mirror, s["repo"])
        commit = subprocess.run(["git", "--git-dir", gd, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        raws = []
        for path, sha in zip(s["paths"], s["sha256"]):
            raw = git_show(gd, path, s["commit"])
            got = hashlib.sha256(raw).hexdigest()
            assert got == sha, f"{s['repo']}:{path} sha256 {got} != manifest {sha}"
            raws.append(raw)
        if commit != s["commit"]:
            print(f"warning: {s['repo']} mirror at {commit}, manifest says {s['commit']} (file hashes match)")
        return raws

    train, dev = [], []
    # SQuAD: split by article, cap train at 4000 pairs.
    sq = squad_pairs(load("squad2-dev")[0])
    t, d = split_groups(sq, 0.1, r)
    t = cap(t, 4000, r)
    train += t + swap_negatives(t, r)
    dev += cap(d, 800, r)
    # CAsT: use the dataset's own partitions (by query); cap 2500 train.
    ca = cast_pairs(load("cast-snippets-answerability")[0])
    train += cap([p for p in ca if p["partition"] == "train"], 2500, r)
    dev += cap([p for p in ca if p["partition"] == "validation"], 500, r)
    # FriendsQA dev + test files (train file is not in the mirror); split by scene.
    fr = []
    for raw in load("friendsqa"):
        fr += friends_pairs(raw, r)
    t, d = split_groups(fr, 0.1, r)
    t = cap(t, 4000, r)
    train += t + swap_negatives(t, r)
    dev += cap(d, 600, r)
    # Synthetic slm-shaped notes; split by generated note.
    check_fixture_entities()
    sy = fixtures.generate(n_facts=900, seed=13)
    t, d = split_groups(sy, 0.12, r)
    train += t
    dev += d
    # LoCoMo: fold's training conversations only (audit corrections applied to evidence); oversampled x2.
    keep, held = FOLDS[args.fold]
    lo = locomo_train_pairs(locomo_convs(LOCOMO, LOCOMO_AUDIT), set(keep), r)
    lo += swap_negatives(lo, r)
    train += lo + lo
    for p in train + dev:
        p.pop("partition", None)
    r.shuffle(train)
    os.makedirs(args.out, exist_ok=True)
    for name, rows in (("train", train), ("dev", dev)):
        with open(os.path.join(args.out, f"{name}.jsonl"), "w") as f:
            for p in rows:
                f.write(json.dumps(p) + "\n")
        c = collections.Counter((p["src"], p["y"]) for p in rows)
        stats[name] = {f"{k[0]}:{k[1]}": v for k, v in sorted(c.items())}
        stats[name]["total"] = len(rows)
    stats["locomo_train_conversations"] = keep
    stats["locomo_heldout_conversations"] = held
    stats["locomo_unique_pairs"] = len(lo)
    json.dump(stats, open(os.path.join(args.out, "stats.json"), "w"), indent=1)
    print(json.dumps(stats, indent=1))


if __name__ == "__main__":
    main()
