"""Five fleet questions as SQL over `turns` (the README shows them; the tests run them).

Re-billed context: a deposit is billed on its own turn and again on every later turn of
its conversation, so its re-billed total is `unexplained_tokens × turns from there to the
end`. When the analysis provides `carried_context` per turn, that measured figure is
summed instead (compaction ends carried context; the estimate does not see that).
"""

from __future__ import annotations

QUERIES: dict[str, tuple[str, str]] = {
    "rebilled": ("Top re-billed conversations", """\
WITH t AS (SELECT *, count(*) OVER (PARTITION BY source, conversation_key) AS conv_turns
           FROM turns)
SELECT regexp_extract(source, '[^/]+$') AS capture,
       left(conversation_key, 20) AS conversation, any_value(conversation_kind) AS kind,
       count(*) AS turns,
       sum(unexplained_tokens) FILTER (WHERE list_contains(markers, 'deposit')) AS deposited,
       coalesce(sum(carried_context),
                sum(unexplained_tokens * (conv_turns - conversation_index + 1))
                  FILTER (WHERE list_contains(markers, 'deposit'))) AS rebilled_tokens
FROM t GROUP BY source, conversation_key
HAVING rebilled_tokens > 0
ORDER BY rebilled_tokens DESC, capture, conversation LIMIT 10"""),
    "evidence": ("Evidence-missing rate by tool", """\
SELECT c.type AS tool, count(*) AS calls,
       count(*) FILTER (WHERE c.evidence = 'missing') AS missing,
       round(100.0 * count(*) FILTER (WHERE c.evidence = 'missing') / count(*), 1)
         AS missing_pct,
       any_value(c.include) FILTER (WHERE c.evidence = 'missing') AS include_flag
FROM (SELECT unnest(hosted_calls) AS c FROM turns)
GROUP BY tool ORDER BY calls DESC, tool"""),
    "latency": ("p95 latency by model, with and without hosted tools", """\
SELECT model,
       CASE WHEN len(hosted_calls) > 0 THEN 'hosted tools' ELSE 'none' END AS hosted,
       count(*) AS turns,
       round(quantile_cont(elapsed_ms, 0.5)) AS p50_ms,
       round(quantile_cont(elapsed_ms, 0.95)) AS p95_ms
FROM turns WHERE elapsed_ms IS NOT NULL
GROUP BY ALL ORDER BY model, hosted"""),
    "deposits": ("Deposits by day", """\
SELECT date, count(*) AS turns,
       count(*) FILTER (WHERE list_contains(markers, 'deposit')) AS deposits,
       coalesce(sum(unexplained_tokens) FILTER (WHERE list_contains(markers, 'deposit')), 0)
         AS deposited_tokens
FROM turns GROUP BY date ORDER BY date"""),
    "cost": ("Cost by conversation kind", """\
SELECT conversation_kind AS kind,
       count(DISTINCT (source, conversation_key)) AS conversations, count(*) AS turns,
       round(sum(cost_usd), 4) AS cost_usd,
       count(*) FILTER (WHERE cost_usd IS NULL) AS unpriced_turns
FROM turns GROUP BY ALL ORDER BY cost_usd DESC NULLS LAST, kind"""),
    "tenant": ("Re-billed context and cost by tenant", """\
SELECT coalesce(json_extract_string(metadata, '$.tenant'), '(none)') AS tenant,
       count(DISTINCT (source, conversation_key)) AS conversations, count(*) AS turns,
       coalesce(sum(carried_context), 0) AS carried_tokens,
       round(sum(cost_usd), 4) AS cost_usd,
       round(count(*) FILTER (WHERE len(hosted_calls) > 0) / count(*), 2) AS trigger_rate
FROM turns GROUP BY ALL ORDER BY carried_tokens DESC, tenant"""),
}
