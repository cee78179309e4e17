"""The OpenAI wire vocabulary, said once: item and call types, which tool makes which call,
the include flag that captures each hosted call's evidence, and the terminal stream events.

Every dict from a capture is open-ended (docs/openai-wire.md): these sets name what this
version knows; anything outside them is shown as unknown, never dropped.
"""

from __future__ import annotations

# Content parts whose `text` a person (or the model) reads.
TEXT_PART_TYPES = frozenset({"input_text", "output_text", "text", "summary_text",
                             "reasoning_text"})

# Item types the model (or the provider on its behalf) writes; everything else in an
# input list was supplied by the client.
MODEL_ITEM_TYPES = frozenset({
    "reasoning", "function_call", "custom_tool_call", "file_search_call", "web_search_call",
    "code_interpreter_call", "image_generation_call", "computer_call", "local_shell_call",
    "shell_call", "apply_patch_call", "mcp_list_tools", "mcp_call", "mcp_approval_request",
    "tool_search_call", "program", "compaction", "additional_tools",
})

# Output items the provider executed itself (a response's hosted calls).
HOSTED_CALL_TYPES = frozenset({
    "file_search_call", "web_search_call", "code_interpreter_call", "image_generation_call",
    "mcp_call", "mcp_list_tools", "shell_call", "tool_search_call", "program",
})
# Hosted items as a stored conversation lists them: the calls and the outputs the provider
# wrote for them (item listings hold both).
HOSTED_ITEM_TYPES = HOSTED_CALL_TYPES | {"tool_search_output", "program_output",
                                         "shell_call_output"}

# Each hosted call's evidence: (dotted path in the item, include flag, plain name).
EVIDENCE: dict[str, tuple[str, str, str]] = {
    "file_search_call": ("results", "file_search_call.results", "file-search results"),
    "web_search_call": ("action.sources", "web_search_call.action.sources",
                        "web-search sources"),
    "code_interpreter_call": ("outputs", "code_interpreter_call.outputs",
                              "code-interpreter outputs"),
}
# The include flag that puts each hosted call's evidence into the response.
INCLUDE_FLAGS = {call: flag for call, (_path, flag, _name) in EVIDENCE.items()}
# The include flags that carry hosted-tool evidence, in the order requests send them.
HOSTED_EVIDENCE_INCLUDE: tuple[str, ...] = tuple(INCLUDE_FLAGS.values())
# Every include value the Responses API accepts.
INCLUDABLE = frozenset({
    "file_search_call.results", "web_search_call.results", "web_search_call.action.sources",
    "message.input_image.image_url", "computer_call_output.output.image_url",
    "code_interpreter_call.outputs", "reasoning.encrypted_content",
    "message.output_text.logprobs",
})

# Every output item type the provider is known to send (docs/openai-wire.md §2.1, plus the
# listed-only `configuration_update`).
KNOWN_OUTPUT_TYPES = frozenset({
    "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
    "custom_tool_call_output", "file_search_call", "web_search_call", "code_interpreter_call",
    "image_generation_call", "computer_call", "computer_call_output", "local_shell_call",
    "local_shell_call_output", "shell_call", "shell_call_output", "apply_patch_call",
    "apply_patch_call_output", "mcp_list_tools", "mcp_call", "mcp_approval_request",
    "mcp_approval_response", "tool_search_call", "tool_search_output", "additional_tools",
    "program", "program_output", "compaction", "configuration_update",
})

# Output items that hand the next step to the application: it must run the call (or ask a
# person to approve it) and answer with an item carrying the same call id.
ACTION_TYPES = frozenset({
    "function_call", "custom_tool_call", "computer_call", "local_shell_call",
    "apply_patch_call", "mcp_approval_request",
})
# Input items that answer an action: type -> the key holding the call id they answer.
ANSWER_KEYS = {
    "function_call_output": "call_id", "custom_tool_call_output": "call_id",
    "computer_call_output": "call_id", "local_shell_call_output": "call_id",
    "apply_patch_call_output": "call_id", "shell_call_output": "call_id",
    "mcp_approval_response": "approval_request_id",
}

# Which hosted calls each tool in a request's `tools` makes.
HOSTED_TOOL_CALLS: dict[str, tuple[str, ...]] = {
    "file_search": ("file_search_call",),
    "web_search": ("web_search_call",),
    "web_search_preview": ("web_search_call",),
    "web_search_2025_08_26": ("web_search_call",),
    "web_search_preview_2025_03_11": ("web_search_call",),
    "code_interpreter": ("code_interpreter_call",),
    "image_generation": ("image_generation_call",),
    "mcp": ("mcp_call", "mcp_list_tools", "mcp_approval_request"),
}
# Which tool a hosted call came from (the name requests use in `tools`).
CALL_TOOL = {
    "file_search_call": "file_search", "web_search_call": "web_search",
    "code_interpreter_call": "code_interpreter", "image_generation_call": "image_generation",
    "mcp_call": "mcp", "mcp_list_tools": "mcp", "mcp_approval_request": "mcp",
}
WEB_SEARCH_ALIASES = ("web_search", "web_search_preview", "web_search_2025_08_26",
                      "web_search_preview_2025_03_11")

# Stream events that carry the finished response, and statuses that are not yet final.
TERMINAL_EVENTS = ("response.completed", "response.failed", "response.incomplete")
NON_TERMINAL = ("queued", "in_progress")
