"""A real MCP client that we did not write (the Python `mcp` SDK) drives `slm mcp` over stdio.

Run by tests/it/agents.rs with the environment of a temporary slm home whose worker is already
started with one question slot and a slow semantic producer (so a second question is busy).
Exits non-zero with a message on the first failed check.
"""

import asyncio
import json
import os
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SLM = os.environ["SLM_BIN"]


def check(cond, what, detail=None):
    if not cond:
        print(f"FAILED: {what}\n{json.dumps(detail, indent=1, default=str)[:4000] if detail is not None else ''}")
        sys.exit(1)
    print(f"ok: {what}")


def body(result):
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def main():
    params = StdioServerParameters(command=SLM, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "slm", "initialize names the server", init.server_info)
            check(bool(init.instructions) and "warming_up" in init.instructions, "instructions tell the agent about warming", init.instructions)

            tools = {t.name: t for t in (await session.list_tools()).tools}
            for name in ["recall", "search", "expand", "fetch", "remember", "session_init", "feedback"]:
                check(name in tools, f"tool {name} is listed")
            check("include_related" in tools["recall"].input_schema["properties"], "recall takes include_related")
            check("do NOT conclude" in tools["recall"].description, "recall's description covers warming")

            r = body(await session.call_tool("remember", {"content": "We chose Postgres for the analytics warehouse", "kind": "decision", "tags": ["db"]}))
            check(isinstance(r.get("id"), int), "remember returns an id", r)
            pg = r["id"]
            body(await session.call_tool("remember", {"content": "The billing team moved to the fourth floor"}))
            again = body(await session.call_tool("remember", {"content": "Deploys freeze on Fridays", "idempotency_key": "k1"}))
            twice = body(await session.call_tool("remember", {"content": "Deploys freeze on Fridays", "idempotency_key": "k1"}))
            check(twice["id"] == again["id"] and twice["existed"] is True, "the same idempotency_key stores once", twice)

            # The supported answer, with the score contract on every result.
            v = body(await session.call_tool("recall", {"query": "Which database did we choose for analytics?"}))
            check(v["tier"] == "supported", "recall: supported", v)
            check(v["results"][0]["id"] == pg, "the Postgres decision answers it", v)
            fb = body(await session.call_tool("feedback", {"recall_id": v["recall_id"], "memory_id": pg, "helpful": True}))
            check(fb.get("recorded") is True and fb.get("label") == "good", "feedback on a recalled memory is recorded", fb)
            for f in ["relevance_score", "ranking_score", "memory_confidence", "trust_score", "rank_position", "tier"]:
                check(f in v["results"][0], f"result carries {f}")
            # answer_confidence is set only when the answer check judged (slm's reader does by default)
            judged = v["answer_check_status"] == "judged"
            check(v["calibration_status"] == "uncalibrated"
                  and (v["answer_confidence"] is None) != judged, "score contract on the response")

            # Related: empty for the agent, with the note; include_related shows them.
            q = "What did the billing team decide about invoices?"
            v = body(await session.call_tool("recall", {"query": q}))
            check(v["tier"] == "related" and v["results"] == [], "agent recall: related comes back empty", v)
            check(v["note"] == "I don't have this exactly. Closer memories exist; ask with include_related to see them.", "the agent's related note", v)
            v = body(await session.call_tool("recall", {"query": q, "include_related": True}))
            check(len(v["results"]) >= 1 and all(x["tier"] == "related" for x in v["results"]), "include_related returns them, labelled", v)
            s = body(await session.call_tool("search", {"query": q}))
            check(s["tier"] == "related" and len(s["results"]) >= 1, "search (person view) shows related", s)
            n = body(await session.call_tool("recall", {"query": "What is the GDP of Norway?"}))
            check(n["tier"] in ("none", "related") and n["results"] == [], "an unknown question is not supported", n)

            e = body(await session.call_tool("expand", {"memory_id": pg}))
            check(e["memory"]["id"] == pg, "expand returns the memory", e)
            f = body(await session.call_tool("fetch", {"ids": [pg, 999999]}))
            check(len(f["memories"]) == 1 and f["not_found"] == [999999], "fetch: found and not found", f)
            si = body(await session.call_tool("session_init", {}))
            check("Postgres" in si["text"] and si["tokens_used"] <= si["budget_tokens"], "session_init: context within budget", si)
            res = await session.read_resource("slm://session-context")
            check("Postgres" in res.contents[0].text, "the session-context resource")

            bad = await session.call_tool("recall", {"query": "x", "depth": 9})
            check(bad.is_error and body(bad)["error"]["code"] == "USAGE", "bad arguments are a tool error", body(bad))

            # Busy: one slot, held by a slow question from another process.
            slow = subprocess.Popen([SLM, "recall", "When do backups run at night?"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.8)
            b = await session.call_tool("recall", {"query": "Who rotates the signing keys?"})
            bb = body(b)
            slow.wait()
            check(b.is_error and bb["error"]["code"] == "RECALL_BUSY" and bb["error"]["retryable"] is True, "busy: RECALL_BUSY, retryable", bb)
            check("nothing was lost" in bb["error"]["message"], "busy: the spec's sentence", bb)
            await session.send_ping()
    print("all MCP checks passed")


asyncio.run(main())
