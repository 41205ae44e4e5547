"""A player's answer for one turn: the text with what came with it.

A model's answer is more than its text: the records want the request as
sent and the raw response, the live panels want tokens and latency. Kept
on the player (``last_call``, ``last_latency``) they were a side channel
every reader had to know about and read right after the call; returned
together with the text, they reach the recorder and the screen as one
value that belongs to one turn (as Inspect AI's ``ModelOutput`` carries
text, usage and the raw response together).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reply:
    text: str                        # what the episode judges, as the model (or person) wrote it
    call: dict | None = None         # the request record clemcore keeps: manipulated_prompt_obj,
    #                                  raw_response_obj, call_start, call_duration (models only)
    tokens_in: int | None = None     # as the server reported them; None when it did not (or no model)
    tokens_out: int | None = None
    latency: float | None = None     # seconds the turn took, from its first attempt's start (models only)
    tokens_estimated: bool = False   # the server reported no usage: the counts are ours (about 4 characters a token)
    finish_reason: str | None = None   # why the model stopped ("stop", "length", "tool_calls"...), as the server said
    tool_calls: tuple = ()           # (name, arguments text) per tool call the model made, in order
    raw: str | None = None           # the model's own text before the episode's rules read it (unstripped)
    secrets: tuple = ()              # values the records must never hold (the model's key)
    attempts: tuple = ()             # per request asked for this turn: {"start", "seconds", "outcome"}
    notes: tuple = ()                # what a person watching should know of how this turn was asked
