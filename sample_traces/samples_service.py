"""service_day.jsonl: what a service writes in a day, several conversations interleaved."""

from __future__ import annotations

from typing import Any

from capture_writer import CaptureLines
from sdk_build import (
    MODEL_ALIAS,
    compaction_item,
    dump,
    hex_id,
    message,
    response,
    url_citation,
    usage,
    web_search_call,
    web_search_tool,
)
from sdk_stream import message_stream

T_DAY = 1756051200  # 2025-08-24 16:00:00 UTC
CONV_TRAVEL = hex_id("conv", "day/conv/travel", T_DAY, width=48)
CONV_HR = hex_id("conv", "day/conv/hr", T_DAY + 300, width=48)
COMPACTION = [{"type": "compaction", "compact_threshold": 4000}]
SOURCES = ["https://www.gov.uk/hand-luggage-restrictions",
           "https://www.caa.co.uk/passengers/security/liquids",
           "https://www.heathrow.com/at-the-airport/security/liquids"]

TRAVEL_ANSWER = (
    "Most UK airports still apply the 100 ml rule: liquids in containers of up to 100 ml, "
    "all in one clear resealable bag of about 20 cm by 20 cm (GOV.UK). Airports with the new "
    "CT scanners may allow up to 2 litres, but the rules vary by airport, so check yours "
    "before you fly (Heathrow)."
)
HR_TEXTS = [
    ("How many days of annual leave do I get in my first year?",
     "Full-time staff get 25 days of annual leave plus bank holidays, pro rata in the first "
     "year from your start date. Part-time leave is calculated on your contracted hours."),
    ("Can I carry unused days into next year?",
     "You can carry over up to five days into the next leave year. They must be used by "
     "31 March, and carrying over more needs your manager's approval in writing."),
    ("Thanks, who do I ask to approve carry-over?",
     "Your line manager approves carry-over in the HR portal under Leave > Carry over."),
]
REVIEW_TEXTS = [
    "Review this database migration before I run it in production: it adds a nullable "
    "column, backfills it in batches of 10,000 rows and then adds a NOT NULL constraint. "
    + "-- migration 0042_add_region.sql\n" * 40,
    "Here is the revised version with the batching moved into a function and a lock timeout "
    "set. Anything else? " + "UPDATE accounts SET region = 'eu' WHERE id BETWEEN $1 AND $2;\n"
    * 45,
    "Last check: is it safe to run during business hours?",
]
REVIEW_ANSWERS = [
    "Three things to change before production: set a lock_timeout, add the NOT NULL "
    "constraint as NOT VALID and validate it separately, and commit each batch.",
    "Much better. Add a pause between batches and log progress so you can resume.",
    "Yes, with the lock timeout and NOT VALID constraint the locks are brief; run it outside "
    "the nightly backup window.",
]


def _span(word: str) -> tuple[int, int]:
    """Start and end index of a cited word in the travel answer."""
    start = TRAVEL_ANSWER.index(word)
    return start, start + len(word)


def _turn(out: CaptureLines, req: dict[str, Any], body: Any, elapsed: int) -> None:
    """One request/response pair."""
    out.req(req)
    out.res(dump(body), elapsed)


def service_day() -> bytes:
    """Twelve turns from seven conversations, in the order the service made them."""
    out = CaptureLines()
    tools_req = [{"type": "web_search"}]
    t = T_DAY

    def resp_id(label: str) -> str:
        return hex_id("resp", f"day/{label}", t)

    # A1 travel (conversation handle) - web search with sources captured
    a1 = resp_id("travel/1")
    _turn(out, {"model": MODEL_ALIAS, "conversation": CONV_TRAVEL,
                "input": "What are the current UK rules for liquids in hand luggage?",
                "tools": tools_req, "include": ["web_search_call.action.sources"],
                "store": True},
          response(resp_id=a1, created_at=t, conversation_id=CONV_TRAVEL,
                   tools=[web_search_tool()], usage_=usage(1920, 280),
                   output=[web_search_call(hex_id("ws", "day/ws/1", t),
                                           "UK hand luggage liquids rules 2025", SOURCES),
                           message(hex_id("msg", "day/travel/1", t), TRAVEL_ANSWER, [
                               url_citation(SOURCES[0], "Hand luggage restrictions - GOV.UK",
                                            *_span("GOV.UK")),
                               url_citation(SOURCES[2], "Liquids - Heathrow",
                                            *_span("Heathrow"))])]),
          3420)
    # C1 review chain (context_management allows server-side compaction)
    t += 95
    c1 = resp_id("review/1")
    _turn(out, {"model": MODEL_ALIAS, "input": REVIEW_TEXTS[0], "context_management": COMPACTION,
                "store": True},
          response(resp_id=c1, created_at=t, usage_=usage(2400, 520, 0),
                   output=[message(hex_id("msg", "day/review/1", t), REVIEW_ANSWERS[0])]),
          4870)
    # B1 HR (conversation handle, plain)
    t += 140
    hr_usage = [(640, 180, 0), (930, 160, 0), (1180, 90, 896)]

    def hr_turn(n: int, elapsed: int) -> None:
        _turn(out, {"model": MODEL_ALIAS, "conversation": CONV_HR, "input": HR_TEXTS[n][0],
                    "store": True},
              response(resp_id=resp_id(f"hr/{n}"), created_at=t, conversation_id=CONV_HR,
                       usage_=usage(*hr_usage[n]),
                       output=[message(hex_id("msg", f"day/hr/{n}", t), HR_TEXTS[n][1])]),
              elapsed)

    hr_turn(0, 1530)
    # S streamed stateless turn, completed
    t += 60
    s_final = response(resp_id=resp_id("haiku"), created_at=t, usage_=usage(24, 21),
                       output=[message(hex_id("msg", "day/haiku", t),
                                       "Friday deploy waits,\nrollback plan in a side tab,\n"
                                       "the pager stays calm.")])
    out.req({"model": MODEL_ALIAS, "input": "Write a haiku about deploying on a Friday.",
             "stream": True, "store": True})
    out.res(dump(s_final), 1840, events=message_stream(s_final))
    # A2 travel follow-up, no tool call
    t += 75
    _turn(out, {"model": MODEL_ALIAS, "conversation": CONV_TRAVEL,
                "input": "And if I connect through Amsterdam on the way back?",
                "tools": tools_req, "store": True},
          response(resp_id=resp_id("travel/2"), created_at=t, conversation_id=CONV_TRAVEL,
                   tools=[web_search_tool()], usage_=usage(2260, 190, 1792),
                   output=[message(hex_id("msg", "day/travel/2", t),
                                   "At Amsterdam Schiphol the 100 ml rule applies at transfer "
                                   "security too, so pack as you would for the UK leg.")]),
          2210)
    # C2
    t += 120
    c2 = resp_id("review/2")
    _turn(out, {"model": MODEL_ALIAS, "input": REVIEW_TEXTS[1], "previous_response_id": c1,
                "context_management": COMPACTION, "store": True},
          response(resp_id=c2, created_at=t, previous_response_id=c1,
                   usage_=usage(3860, 610, 2304),
                   output=[message(hex_id("msg", "day/review/2", t), REVIEW_ANSWERS[1])]),
          5120)
    # X stream cut off before its terminal event: no body, no usage
    t += 40
    cut = response(resp_id=resp_id("mutex"), created_at=t, usage_=usage(31, 240),
                   output=[message(hex_id("msg", "day/mutex", t),
                                   "A mutex is a lock with an owner: only the thread that "
                                   "locked it may unlock it. A semaphore is a counter that "
                                   "allows up to N holders at once, with no owner.")])
    out.req({"model": MODEL_ALIAS, "input": "Explain the difference between a mutex and a "
             "semaphore with an example.", "stream": True, "store": True})
    out.res(None, 30004, events=message_stream(cut, cut_after_deltas=5))
    # B2
    t += 90
    hr_turn(1, 1710)
    # I incomplete (max_output_tokens)
    t += 30
    partial = ("Albania - Tirana\nAndorra - Andorra la Vella\nAustria - Vienna\nBelarus - Minsk\n"
               "Belgium - Brussels\nBosnia and Herzegovina - Sarajevo\nBulgaria - Sofia\n"
               "Croatia - Zagreb\nCyprus - Nicosia\nCzechia - Prague\nDenmark - Copen")
    _turn(out, {"model": MODEL_ALIAS, "input": "List every country in Europe with its capital.",
                "max_output_tokens": 120, "store": True},
          response(resp_id=resp_id("capitals"), created_at=t, status="incomplete",
                   incomplete_reason="max_output_tokens", max_output_tokens=120,
                   usage_=usage(19, 120),
                   output=[message(hex_id("msg", "day/capitals", t), partial,
                                   status="incomplete")]),
          1650)
    # C3 explicit server-side compaction: a compaction item, and billed input falls
    t += 150
    _turn(out, {"model": MODEL_ALIAS, "input": REVIEW_TEXTS[2], "previous_response_id": c2,
                "context_management": COMPACTION, "store": True},
          response(resp_id=resp_id("review/3"), created_at=t, previous_response_id=c2,
                   usage_=usage(1380, 300, 0),
                   output=[compaction_item(hex_id("cmp", "day/review/cmp", t),
                                           "gAAAAABoq" + "Zm9vYmFy" * 40),
                           message(hex_id("msg", "day/review/3", t), REVIEW_ANSWERS[2])]),
          3980)
    # F failed (server_error, usage null)
    t += 45
    _turn(out, {"model": MODEL_ALIAS, "input": "Translate to German: The meeting is moved to "
                "Thursday at 10:00.", "store": True},
          response(resp_id=resp_id("translate"), created_at=t, status="failed",
                   error={"code": "server_error", "message": "The server had an error while "
                          "processing your request. Sorry about that!"},
                   usage_=None, output=[]),
          812)
    # B3
    t += 200
    hr_turn(2, 980)
    return out.to_bytes()
