"""Synthetic slm-shaped memory/question pairs for the reader model.

Written by the slm project for this model; licence CC0 1.0 (public domain).
Every entity, value and template here is invented for this file. None is taken
from fixtures/notes-dev.json or fixtures/notes-holdout.json (build_data.py
asserts that no proper noun of this file appears in those evaluation sets), and
the six demo pairs of evaluate.py are not generated.

Each schema makes one note (a memory) from slot values, questions that the
note answers (positives, worded differently from the note), and near-miss
questions that share its topic but ask something the note does not state
(another person, environment, attribute, date, quantity).
"""

import random

PEOPLE = [
    ("Ingrid", "Solberg"), ("Tobias", "Mwangi"), ("Rosa", "Delgado"), ("Kenji", "Ward"),
    ("Aisha", "Rahman"), ("Felix", "Novak"), ("Nadia", "Petrova"), ("Omar", "Castillo"),
    ("Greta", "Lindqvist"), ("Samuel", "Otieno"), ("Chloe", "Marchetti"), ("Viktor", "Hale"),
    ("Leila", "Karimi"), ("Bruno", "Esposito"), ("Hana", "Kowalski"), ("Isaac", "Brennan"),
    ("Pablo", "Ibarra"), ("Yara", "Haddou"), ("Desmond", "Achebe"), ("Elif", "Demir"),
    ("Rohan", "Mehta"), ("Sunita", "Rao"), ("Lukas", "Brandt"), ("Freya", "Holm"),
    ("Mateo", "Vargas"), ("Zoe", "Whitaker"), ("Arjun", "Pillai"), ("Clara", "Moreau"),
    ("Emil", "Sorensen"), ("Nora", "Quinlan"), ("Tariq", "Aziz"), ("Beatriz", "Lopes"),
]
SERVICES = [
    "checkout", "invoicing", "search", "notifications", "payroll", "inventory", "ingest",
    "auth", "reporting", "shipping", "recommendations", "media upload", "ledger",
    "scheduler", "geocoding", "pricing", "onboarding", "audit log",
]
STORES = [
    ("orders database", "orders db"), ("ledger database", "ledger db"), ("job queue", "queue"),
    ("cache", "cache"), ("search cluster", "search cluster"), ("metrics store", "metrics db"),
    ("session store", "session store"), ("message broker", "broker"), ("API gateway", "gateway"),
    ("object store", "object store"), ("user database", "users db"), ("feature store", "feature store"),
]
ENVS = ["staging", "production", "dev", "QA", "sandbox", "load-test", "demo"]
REGIONS = ["Frankfurt", "Oregon", "Mumbai", "Sydney", "Montreal", "Stockholm", "Osaka", "Zurich", "Sao Paulo", "Dublin"]
TECH = [
    ("CockroachDB", "database"), ("DuckDB", "database"), ("Snowflake", "warehouse"),
    ("Cassandra", "database"), ("MongoDB", "database"), ("RabbitMQ", "message queue"),
    ("NATS", "message bus"), ("Meilisearch", "search engine"), ("Elasticsearch", "search engine"),
    ("Prometheus", "monitoring tool"), ("Airflow", "orchestrator"), ("Dagster", "orchestrator"),
    ("Temporal", "workflow engine"), ("Celery", "task queue"), ("Nomad", "scheduler"),
    ("Pulumi", "infrastructure tool"), ("Ansible", "config tool"), ("Svelte", "frontend framework"),
    ("Vue", "frontend framework"), ("Django", "web framework"), ("FastAPI", "web framework"),
    ("Rails", "web framework"), ("Kotlin", "language"), ("Elixir", "language"),
    ("Bitbucket", "code host"), ("Linear", "issue tracker"), ("Jira", "issue tracker"),
    ("Honeycomb", "tracing tool"), ("Zipkin", "tracing tool"), ("Mailgun", "email provider"),
]
PURPOSES = [
    "the reporting warehouse", "event storage", "the mobile backend", "background jobs",
    "full-text search", "the internal admin panel", "customer dashboards", "the data pipeline",
    "audit trails", "the partner API", "the marketing site", "batch exports", "release automation",
]
LANGS = [("Python", ["3.10", "3.11", "3.12", "3.13"]), ("Node", ["18", "20", "22"]),
         ("Java", ["17", "21"]), ("Ruby", ["3.2", "3.3"]), ("PHP", ["8.2", "8.3"]), ("Scala", ["2.13", "3.4"])]
TEAMS = ["platform", "payments", "growth", "mobile", "data", "security", "support tooling", "infra", "design", "sales ops"]
PROJECTS = ["Project Heron", "the Orchid redesign", "Tidewater", "the Juniper migration", "Bluebell",
            "the Falcon app", "Cobalt", "the Meadow portal", "Sparrow", "Quartz"]
VENDORS = ["Brightwave", "Cloudnest", "Paperloop", "Helixa", "Signalbox", "Northwind Print", "Tessera", "Loopform"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
CITIES = ["Porto", "Krakow", "Valencia", "Nairobi", "Glasgow", "Seoul", "Bergen", "Tallinn", "Boise", "Lyon", "Hobart"]
ANIMALS = [("dog", ["Biscuit", "Pepper", "Rufus", "Mochi"]), ("cat", ["Noodle", "Saffron", "Pixel", "Olive"]),
           ("parrot", ["Kiwi", "Captain"]), ("rabbit", ["Clover", "Thumper"])]
FOODS = ["peanuts", "shellfish", "gluten", "dairy", "sesame", "eggs", "strawberries"]
HOBBIES = ["rock climbing", "the cello", "marathon running", "pottery", "chess", "sailing", "birdwatching", "baking sourdough"]
WEEKDAYS = ["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays"]


def proper_nouns():
    """Proper nouns this file invents (checked against the evaluation sets)."""
    out = set()
    for f, l in PEOPLE:
        out |= {f, l}
    for t, _ in TECH:
        out.add(t)
    out |= set(REGIONS) | set(VENDORS) | set(CITIES)
    for p in PROJECTS:
        out |= {w for w in p.split() if w[0].isupper() and w not in ("Project",)}
    for _, names in ANIMALS:
        out |= set(names)
    return out


def _date(r):
    return f"{r.randint(1, 28)} {r.choice(MONTHS)}"


def _other(r, seq, x):
    while True:
        y = r.choice(seq)
        if y != x:
            return y


def schema_port(r):
    env = r.choice(ENVS)
    store, short = r.choice(STORES)
    port = r.choice([5434, 6380, 9201, 7001, 8443, 27018, 5673, 4222, 9093, 8081, 3307])
    note = r.choice([
        f"The {env} {store} listens on port {port}.",
        f"{env.capitalize()} {store} runs on port {port} now.",
        f"Heads up: the {env} {store} moved to port {port}.",
        f"Port for the {env} {store} is {port}",
    ])
    pos = [f"what port does {env} {short} use", f"Which port is the {env} {store} on?",
           f"{env} {short} port?", f"how do I connect to the {env} {store}, what port?",
           f"What port should I point at for the {env} {store}?"]
    env2 = _other(r, ENVS, env)
    store2, short2 = _other(r, STORES, (store, short))
    neg = [f"What port does the {env2} {store} use?", f"what port does {env2} {short} use",
           f"Which port is the {env} {store2} on?", f"What version is the {env} {store} running?",
           f"Who manages the {env} {store}?", f"Where is the {env} {store} hosted?",
           f"What is the password for the {env} {store}?", f"How big is the {env} {store}?"]
    return note, pos, neg


def schema_owner(r):
    f, l = r.choice(PEOPLE)
    svc = r.choice(SERVICES)
    note = r.choice([
        f"{f} owns the {svc} service.", f"{f} {l} is the owner of the {svc} service.",
        f"The {svc} service belongs to {f}'s team; {f} is the owner.", f"{f} took over ownership of {svc} last month.",
    ])
    pos = [f"who owns {svc}?", f"Who is responsible for the {svc} service?", f"Who should I ask about the {svc} service?",
           f"who's the owner of {svc}", f"Which person maintains {svc}?"]
    svc2 = _other(r, SERVICES, svc)
    neg = [f"When is {f}'s birthday?", f"What is {f}'s last name?" if l not in note else f"Where does {f} live?",
           f"Who owns the {svc2} service?", f"What team is {f} on?", f"What language is the {svc} service written in?",
           f"What is {f}'s phone number?", f"Where is the {svc} service deployed?", f"How old is {f}?"]
    return note, pos, neg


def schema_choice(r):
    tech, cat = r.choice(TECH)
    purpose = r.choice(PURPOSES)
    reason = r.choice(["", " because it was cheaper", " for its price", " after a two-week trial", " since the team knew it already"])
    note = r.choice([
        f"We chose {tech} for {purpose}{reason}.", f"Decided: {purpose} will use {tech}{reason}.",
        f"After the review we picked {tech} as the {cat} for {purpose}{reason}.",
    ])
    pos = [f"Which {cat} did we choose for {purpose}?", f"What are we using for {purpose}?",
           f"what did we pick for {purpose}", f"{purpose} runs on which {cat}?", f"What {cat} was selected for {purpose}?"]
    purpose2 = _other(r, PURPOSES, purpose)
    neg = [f"Which {cat} did we choose for {purpose2}?", f"How much does {tech} cost?", f"When did we choose {tech}?",
           f"Who decided to use {tech}?", f"What version of {tech} do we run?", f"Who maintains {tech} for {purpose}?",
           f"What did we use for {purpose} before {tech}?"]
    if reason:
        pos.append(f"Why did we choose {tech}?")
    else:
        neg.append(f"Why did we choose {tech} for {purpose}?")
    return note, pos, neg


def schema_birthday(r):
    f, l = r.choice(PEOPLE)
    d = _date(r)
    note = r.choice([f"{f}'s birthday is on {d}.", f"{f} {l} was born on {d}.", f"Remember: {f} celebrates her birthday on {d}.",
                     f"{f}'s birthday: {d}"])
    pos = [f"When is {f}'s birthday?", f"when does {f} celebrate their birthday", f"What day was {f} born?",
           f"{f} birthday date?"]
    f2, _ = _other(r, PEOPLE, (f, l))
    neg = [f"When is {f2}'s birthday?", f"How old is {f}?", f"Where does {f} live?", f"When is {f}'s work anniversary?",
           f"What does {f} want for her birthday?", f"What is {f}'s favourite cake?"]
    return note, pos, neg


def schema_moved(r):
    f, l = r.choice(PEOPLE)
    city = r.choice(CITIES)
    m = r.choice(MONTHS)
    note = r.choice([f"{f} moved to {city} in {m}.", f"{f} relocated to {city} this {m}.", f"{f} {l} now lives in {city}."])
    pos = [f"Where does {f} live now?", f"which city did {f} move to?", f"where is {f} based these days",
           f"What city is {f} in?"]
    f2, _ = _other(r, PEOPLE, (f, l))
    neg = [f"Where is {f} from originally?", f"Where did {f2} move?", f"Why did {f} move to {city}?",
           f"Does {f} like living in {city}?", f"Who moved to {city} with {f}?", f"What is {f}'s address?"]
    return note, pos, neg


def schema_version(r):
    svc = r.choice(SERVICES)
    lang, vers = r.choice(LANGS)
    v = r.choice(vers)
    note = r.choice([f"The {svc} service runs on {lang} {v}.", f"{svc.capitalize()} was upgraded to {lang} {v}.",
                     f"{svc.capitalize()} is pinned to {lang} {v} for now."])
    pos = [f"what {lang} version does {svc} use?", f"Which version of {lang} is {svc} on?", f"{svc} {lang} version",
           f"What runtime version does the {svc} service use?"]
    svc2 = _other(r, SERVICES, svc)
    neg = [f"What version of {lang} does the {svc2} service use?", f"When will {svc} upgrade {lang}?",
           f"Who upgraded {svc} to {lang} {v}?", f"What database does {svc} use?", f"How many instances of {svc} run?"]
    return note, pos, neg


def schema_standup(r):
    team = r.choice(TEAMS)
    h = r.choice(["9:15", "9:30", "10:00", "10:45", "11:00", "14:00"])
    days = r.choice(["every weekday", "on " + r.choice(WEEKDAYS) + " and " + r.choice(WEEKDAYS), "daily"])
    note = r.choice([f"The {team} standup is at {h} {days}.", f"{team.capitalize()} team standup moved to {h}, {days}.",
                     f"{team.capitalize()} standup: {h} {days}, in the small room."])
    pos = [f"What time is the {team} standup?", f"when does the {team} team have standup", f"{team} standup time?",
           f"When do the {team} folks meet for standup?"]
    team2 = _other(r, TEAMS, team)
    neg = [f"What time is the {team2} standup?", f"Who runs the {team} standup?", f"How long does the {team} standup last?",
           f"When is the {team} retro?", f"What time is the {team} planning meeting?"]
    return note, pos, neg


def schema_launch(r):
    p = r.choice(PROJECTS)
    d = _date(r)
    f, _ = r.choice(PEOPLE)
    note = r.choice([f"The {p} launch is scheduled for {d}.", f"{p[0].upper() + p[1:]} goes live on {d}.",
                     f"{f} confirmed {p} ships {d}."])
    pos = [f"When does {p} launch?", f"What's the launch date for {p}?", f"when is {p} going live",
           f"When will {p} ship?"]
    p2 = _other(r, PROJECTS, p)
    neg = [f"When does {p2} launch?", f"When did {p} start?", f"What is the budget for {p}?",
           f"Which customers get {p} first?", f"When is the {p} retrospective?"]
    if f not in note:
        neg.append(f"Who is leading {p}?")
    return note, pos, neg


def schema_contract(r):
    v = r.choice(VENDORS)
    amt = r.choice(["$12,000", "$4,800", "$31,500", "€9,000", "£15,200", "$2,400"])
    note = r.choice([f"The {v} contract costs {amt} per year.", f"We pay {v} {amt} a year.",
                     f"{v} renewal came in at {amt} annually."])
    pos = [f"How much do we pay {v}?", f"what does the {v} contract cost per year", f"{v} annual cost?",
           f"How expensive is {v}?"]
    v2 = _other(r, VENDORS, v)
    neg = [f"When does the {v} contract renew?", f"How much do we pay {v2}?", f"Who signed the {v} contract?",
           f"What does {v} do for us?", f"How do I cancel the {v} contract?", f"Who is our contact at {v}?"]
    return note, pos, neg


def schema_ratelimit(r):
    svc = r.choice(SERVICES)
    n = r.choice([60, 100, 300, 600, 1200, 5000])
    note = r.choice([f"The {svc} API rate limit is {n} requests per minute.", f"{svc.capitalize()} API: max {n} req/min per client.",
                     f"We cap calls to the {svc} API at {n} per minute."])
    pos = [f"what's the rate limit on the {svc} api?", f"How many requests per minute can I send to {svc}?",
           f"{svc} api throttle limit", f"How often can a client call the {svc} API?"]
    svc2 = _other(r, SERVICES, svc)
    neg = [f"What is the timeout for the {svc} API?", f"What is the rate limit on the {svc2} API?",
           f"Who set the {svc} rate limit?", f"How do I get an API key for {svc}?", f"What is the {svc} API base URL?"]
    return note, pos, neg


def schema_region(r):
    env = r.choice(ENVS)
    reg = r.choice(REGIONS)
    note = r.choice([f"The {env} cluster runs in {reg}.", f"{env.capitalize()} is hosted in the {reg} region.",
                     f"We moved the {env} cluster to {reg}."])
    pos = [f"Which region is the {env} cluster in?", f"where is {env} hosted", f"{env} cluster location?",
           f"In what region does {env} run?"]
    env2 = _other(r, ENVS, env)
    neg = [f"Which region is the {env2} cluster in?", f"How many nodes does the {env} cluster have?",
           f"Who has access to the {env} cluster?", f"What does the {env} cluster cost per month?"]
    return note, pos, neg


def schema_pet(r):
    f, _ = r.choice(PEOPLE)
    animal, names = r.choice(ANIMALS)
    name = r.choice(names)
    note = r.choice([f"{f} has a {animal} named {name}.", f"{f}'s {animal} is called {name}.", f"{f} adopted a {animal}, {name}."])
    pos = [f"What is the name of {f}'s {animal}?", f"What pet does {f} have?", f"what's {f}'s {animal} called",
           f"Does {f} have any pets?"]
    f2, _ = _other(r, PEOPLE, (f, _))
    neg = [f"What is {f2}'s {animal} called?", f"How old is {f}'s {animal}?", f"Does {f} have kids?",
           f"What breed is {name}?", f"Who looks after {name} when {f} travels?"]
    return note, pos, neg


def schema_oncall(r):
    f, l = r.choice(PEOPLE)
    team = r.choice(TEAMS)
    note = r.choice([f"{f} is on call for {team} this week.", f"On-call for {team} this week: {f} {l}.",
                     f"{f} has the {team} pager until Monday."])
    pos = [f"Who's on call for {team}?", f"who has the {team} pager right now", f"Who do I page for a {team} issue this week?"]
    team2 = _other(r, TEAMS, team)
    neg = [f"Who is on call for {team2}?", f"Who is on call for {team} next week?", f"How do I page {f}?",
           f"What is the {team} escalation policy?", f"When does {f} go on holiday?"]
    return note, pos, neg


def schema_allergy(r):
    f, _ = r.choice(PEOPLE)
    food = r.choice(FOODS)
    note = r.choice([f"{f} is allergic to {food}.", f"Note for team lunches: {f} can't eat {food}, allergy.",
                     f"{f} has a {food} allergy."])
    pos = [f"What is {f} allergic to?", f"Does {f} have any food allergies?", f"what can't {f} eat",
           f"Anything {f} can't have at the team dinner?"]
    f2, _ = _other(r, PEOPLE, (f, _))
    neg = [f"What is {f2} allergic to?", f"What is {f}'s favourite food?", f"Is {f} vegetarian?",
           f"Where does {f} like to eat lunch?", f"How severe is {f}'s allergy?"]
    return note, pos, neg


def schema_backup(r):
    store, short = r.choice(STORES)
    n = r.choice([2, 4, 6, 12, 24])
    note = r.choice([f"Backups of the {store} run every {n} hours.", f"The {store} is snapshotted every {n} hours.",
                     f"{store.capitalize()} backup schedule: every {n}h."])
    pos = [f"how often is the {short} backed up?", f"What is the backup frequency for the {store}?",
           f"How frequently do we snapshot the {store}?"]
    store2, _ = _other(r, STORES, (store, short))
    neg = [f"Where are {store} backups stored?", f"How long are {store} backups kept?",
           f"How often is the {store2} backed up?", f"Who restores the {store} from backup?",
           f"When was the {store} last restored?"]
    return note, pos, neg


def schema_hobby(r):
    f, _ = r.choice(PEOPLE)
    h = r.choice(HOBBIES)
    note = r.choice([f"{f} spends most weekends on {h}.", f"{f} got really into {h} this year.", f"{f}'s hobby is {h}."])
    pos = [f"What does {f} do for fun?", f"What is {f}'s hobby?", f"how does {f} spend weekends"]
    f2, _ = _other(r, PEOPLE, (f, _))
    neg = [f"What does {f2} do for fun?", f"How long has {f} been doing {h}?", f"Where does {f} work?",
           f"Who taught {f} {h}?", f"What is {f}'s job title?"]
    return note, pos, neg


SCHEMAS = [schema_port, schema_owner, schema_choice, schema_birthday, schema_moved, schema_version,
           schema_standup, schema_launch, schema_contract, schema_ratelimit, schema_region, schema_pet,
           schema_oncall, schema_allergy, schema_backup, schema_hobby]

DEMO_MEMORIES = {"We chose Postgres for the analytics warehouse", "The staging database listens on port 5433",
                 "Maria owns the billing service"}


def generate(n_facts=900, seed=13):
    """Return a list of dicts {q, m, y, src, group}; one group per generated note."""
    r = random.Random(seed)
    out = []
    for i in range(n_facts):
        schema = SCHEMAS[i % len(SCHEMAS)]
        note, pos, neg = schema(r)
        assert note.rstrip(".") not in DEMO_MEMORIES
        g = f"synth-{i}"
        for q in r.sample(pos, min(2, len(pos))):
            out.append({"q": q, "m": note, "y": 1, "src": "synthetic", "group": g})
        for q in r.sample(neg, min(2, len(neg))):
            out.append({"q": q, "m": note, "y": 0, "src": "synthetic", "group": g})
    return out
