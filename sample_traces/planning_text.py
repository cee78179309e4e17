"""Prose for the long product-planning chain (offline mode for a field-inspection app).

The user pastes a brief, interview notes, competitor notes and estimates on turns 1-4,
which is why billed input climbs by ~1,000 tokens a turn there; later turns are short
questions. Texts are assembled from fixed lists so regeneration is byte-identical.
"""

from __future__ import annotations

PRODUCT = "Fieldnote"

BRIEF = (
    f"I'm planning Q3 for {PRODUCT}, our inspection app for facilities teams (iOS, Android, "
    "web dashboard). The big item is offline mode. Here is the brief the team wrote; help me "
    "turn it into a plan I can take to the steering group.\n\n"
    "Problem. Inspectors work in plant rooms, basements, car parks and rural sites with no "
    "signal. Today the app needs a connection to open a checklist, attach photos and submit. "
    "Inspectors work around this with paper and re-key later; 31% of inspections in the last "
    "quarter were submitted more than four hours after the visit, and support tickets tagged "
    "'no connection' are the second largest category.\n\n"
    "Goal. An inspector can download the day's jobs in the morning, complete every checklist, "
    "take photos and capture signatures with no connection, and everything syncs when the "
    "device is back online without duplicates, lost photos or silent overwrites.\n\n"
    "Requirements the team listed:\n"
) + "\n".join(
    f"R{n}. {text}"
    for n, text in enumerate(
        [
            "Download today's and tomorrow's assigned jobs, including checklist templates, "
            "site plans (PDF) and previous inspection results for the same asset.",
            "Complete checklists offline, including conditional questions and required fields.",
            "Capture photos offline with annotations; queue uploads; resume partial uploads.",
            "Capture customer signatures offline with a timestamp and GPS fix when available.",
            "Show a clear sync status per job: not downloaded, ready offline, changes pending, "
            "synced, conflict.",
            "Resolve conflicts when the office edits a job that an inspector changed offline; "
            "never drop the inspector's answers silently.",
            "Respect storage limits on older devices: warn at 80% and never evict unsynced data.",
            "Encrypt the offline store at rest; wipe it on remote sign-out.",
            "Work on iOS 16+ and Android 10+; the web dashboard stays online-only.",
            "Instrument everything: time offline, queue depth, sync failures by cause.",
            "Let supervisors see which inspectors have unsynced work older than 24 hours.",
            "Keep the current online flow unchanged for customers who do not enable offline.",
        ],
        1,
    )
) + (
    "\n\nOpen questions from the brief: whether to build on our existing SQLite cache or adopt "
    "a sync engine; whether conflict resolution is per field or per checklist section; how to "
    "price it (every plan, or Pro and above); and whether to pilot with one customer first. "
    "Success metrics proposed: late submissions under 10%, 'no connection' tickets down by "
    "half, zero data-loss incidents in the pilot. Timeline wish: pilot by end of August, "
    "general availability in October.\n\nBackground the team added: most inspections "
    "have 40-120 questions and 5-30 photos; a heavy day is twelve jobs; the largest site plans "
    "are 60 MB PDFs; devices in the field are two to five years old; about a fifth of "
    "inspectors share a device between shifts, so sign-out and data ownership matter."
)

PEOPLE = [("Dana", "lead inspector", "hospital estates"), ("Marek", "fire safety engineer",
          "council housing"), ("Priya", "operations manager", "retail chain"),
          ("Tom", "contract inspector", "lift maintenance"), ("Aisha", "compliance lead",
          "university campus"), ("Luis", "field technician", "water utility"),
          ("Grace", "supervisor", "facilities outsourcer"), ("Kwame", "inspector",
          "rail depots"), ("Sofia", "quality manager", "food factories"),
          ("Ben", "estates director", "school trust")]
PAINS = [
    "loses photos when the upload fails in a basement and has to go back to site",
    "keeps a paper copy of every checklist because the app cannot open jobs without signal",
    "re-keys a day's inspections every evening, about 45 minutes of unpaid time",
    "had a supervisor overwrite answers he had entered, with no record of who changed what",
    "cannot prove when a signature was taken because the timestamp is the upload time",
    "gets 'session expired' after being offline for a few hours and loses the draft",
    "needs the previous inspection result on site to compare readings, and cannot get it",
    "finds site plans too large to load over a weak 3G connection in car parks",
    "worries that a lost phone exposes customer data if anything is stored offline",
    "sees no way to tell which of her team has work stuck on a device",
]
QUOTES = [
    "If it doesn't work in the plant room it doesn't work.",
    "I don't mind waiting for sync, I mind not knowing whether it happened.",
    "Just tell me if something is stuck, I'll deal with it.",
    "Show me who changed the answer and when; that's what the auditor asks.",
    "The morning download is fine as long as it's one button.",
]


def interview_notes() -> str:
    """Ten interview summaries, one per customer, as the user pasted them."""
    lines = ["Here are the notes from the ten customer interviews the researchers ran last "
             "month. What patterns do you see, and how should they change the plan?\n"]
    for n, (name, role, sector) in enumerate(PEOPLE):
        lines.append(
            f"Interview {n + 1}: {name}, {role}, {sector}. Works offline on roughly "
            f"{20 + (n * 17) % 60}% of visits. Main pain: {PAINS[n]}. Other notes: uses "
            f"{['iPhone 12', 'Samsung A52', 'iPad 9th gen', 'Pixel 6a', 'Moto G'][n % 5]}; "
            f"{['would pay extra', 'expects it in the base plan', 'budget set in January'][n % 3]}"
            f". Quote: \"{QUOTES[n % len(QUOTES)]}\" Follow-up: asked to join the pilot "
            f"({'yes' if n % 2 == 0 else 'maybe, needs IT approval'}); ranked offline photos "
            f"{1 + n % 3} of 3 against sync status and conflict history."
        )
    return "\n".join(lines)


COMPETITORS = [("SiteCheck Pro", "full offline with per-field merge", "£18/user"),
               ("AuditFlow", "offline checklists, photos upload online only", "£12/user"),
               ("iInspect", "offline everything, last-write-wins conflicts", "£15/user"),
               ("SafetyCulture-style generalists", "offline with section locks", "£19/user"),
               ("Paper + spreadsheets", "always offline, no sync at all", "free")]


def competitor_notes() -> str:
    """Competitor comparison the user pasted on turn 3."""
    lines = ["Competitor notes from sales, for positioning. How do we compare, and what is "
             "the minimum we need at launch to not lose deals?\n"]
    for n, (name, offline, price) in enumerate(COMPETITORS):
        for aspect in ["offline scope", "conflicts", "photos", "pricing", "weak spots"]:
            detail = {
                "offline scope": offline,
                "conflicts": ["per field with history", "none (online only)", "last write wins",
                              "section locking", "n/a"][n],
                "photos": ["queued, resumable", "online only", "queued, not resumable",
                           "queued, compressed", "printed"][n],
                "pricing": price + " per month, offline included",
                "weak spots": ["slow initial download, 2 GB cache", "no offline photos",
                               "silent overwrites reported on forums",
                               "locks block the office for hours", "re-keying, no audit"][n],
            }[aspect]
            lines.append(f"- {name} / {aspect}: {detail}. Sales lost "
                         f"{(n * 3 + len(aspect)) % 7} deals to them last quarter where this came "
                         "up.")
    lines.append("\nSales also says prospects increasingly ask for an audit trail of offline "
                 "edits during procurement, and that two lost deals were to paper because the "
                 "customer did not trust any app offline. Marketing wants a comparison page at "
                 "launch, so whatever we claim must be true on day one.")
    return "\n".join(lines)


TASKS = [("Offline store and encryption", 3, 5), ("Job download and prefetch", 2, 4),
         ("Checklist engine offline", 3, 6), ("Photo queue with resumable upload", 3, 5),
         ("Signatures with local timestamp", 1, 2), ("Sync protocol and server API", 4, 7),
         ("Conflict detection per field", 3, 6), ("Conflict resolution UI", 2, 4),
         ("Sync status UI", 1, 2), ("Storage management", 1, 3),
         ("Remote wipe", 1, 2), ("Supervisor stuck-work view (web)", 2, 3),
         ("Telemetry and dashboards", 1, 2), ("QA: device matrix and soak tests", 3, 5),
         ("Pilot support and docs", 2, 3)]


def estimates() -> str:
    """Engineering estimates in weeks (low/high) the user pasted on turn 4."""
    lines = ["Engineering came back with estimates (engineer-weeks, low/high). We have four "
             "mobile engineers and one backend engineer from July. Can we hit an August pilot "
             "and October GA? Build me a phased plan.\n"]
    for name, low, high in TASKS:
        lines.append(f"- {name}: {low}-{high} weeks. Risks: "
                     f"{'new code paths on both platforms' if high > 4 else 'small, well known'}"
                     f"; depends on {'sync protocol' if 'UI' in name else 'offline store'}; "
                     f"owner {'backend' if 'server' in name or 'web' in name else 'mobile'}. "
                     "Notes: estimate assumes the SQLite cache is kept and extended rather than "
                     "replaced, and that design for the conflict and status screens is ready "
                     "by the start of July.")
    return "\n".join(lines)


CONSTRAINTS = (
    "Two constraints from the steering group I forgot to mention. First, security wants a "
    "review of the offline store design before any pilot data sits on devices; that review "
    "takes two weeks and must start by 15 July. Second, the pilot customer (the hospital "
    "estates team, Dana's group) has a change freeze from 1 to 12 September, so anything we "
    "ship to them must land before 29 August or after the freeze. Also finance will only "
    "approve a Pro-plan-only launch if the pilot shows late submissions falling below 15%. "
    "One more thing: the backend engineer is shared with the billing migration for the first "
    "two weeks of July, so treat backend capacity as half until 14 July. Design has confirmed "
    "the status and conflict screens will be ready on 1 July, but only for iOS; Android "
    "layouts follow a week later. Support would like two weeks' notice before the pilot to "
    "prepare help articles and a macro for 'stuck sync' tickets. "
    "Update the plan with these, and tell me what the critical path is now, which tasks can "
    "run in parallel, and what you would cut first if the security review finds a problem. "
    "Keep the three phases you proposed, but be explicit about dates for each phase, who is "
    "on which task, and which decisions I need from the steering group by the end of June."
)

SHORT_QUESTIONS = [
    "Which three items would you cut if we lose one mobile engineer in August?",
    "Draft the one-paragraph announcement for Thursday's all-hands.",
    "Remind me: what was the top customer pain in the interviews, and who said it?",
]

ANSWER_OPENINGS = [
    "Here is a first-pass plan built from the brief.",
    "The interviews sharpen the plan in three ways.",
    "Against the competitors, the minimum credible launch is narrower than the brief.",
    "With four mobile engineers and one backend engineer, an August pilot is possible only "
    "with a phased scope.",
    "The security review and the pilot freeze move the critical path.",
    "If you lose one mobile engineer, cut these three and keep the pilot date.",
    "Here's a draft for the all-hands.",
    "I don't have the interview details in front of me any more; from what is left of our "
    "conversation I can only say that the main themes were connectivity and sync visibility.",
]

PLAN_POINTS = [
    "Phase 1 (July): offline store with encryption, job download, offline checklists and "
    "signatures, sync status; security review starts 15 July.",
    "Phase 2 (August): resumable photo queue, per-field conflict detection with a simple "
    "keep-mine/keep-theirs screen, telemetry; pilot with Dana's team by 29 August.",
    "Phase 3 (September-October): supervisor stuck-work view, storage management, remote "
    "wipe hardening, device matrix soak tests; GA in October.",
    "Decision needed: keep and extend the SQLite cache rather than adopt a sync engine.",
    "Decision needed: conflict resolution per field, with an audit trail of who changed what.",
    "Risk: the sync protocol is the longest pole (4-7 weeks) and blocks both conflict tasks.",
    "Risk: photo uploads are the top complaint; if they slip, the pilot loses its main win.",
    "Metric: late submissions, 'no connection' tickets, data-loss incidents, queue depth.",
    "Pricing: include offline in Pro and above; revisit after the pilot results.",
    "Parallel work: backend builds the sync API while mobile builds store and checklists.",
]


def answer(turn: int, approx_chars: int) -> str:
    """An assistant answer of roughly ``approx_chars`` characters for a given turn."""
    text = ANSWER_OPENINGS[turn]
    n = turn
    while len(text) < approx_chars:
        text += f"\n{(len(text) // 200) + 1}. {PLAN_POINTS[n % len(PLAN_POINTS)]}"
        n += 3
    return text
