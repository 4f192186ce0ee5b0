"""Build the loop: prepare → profile → diagnose → schedule → optimize → approve → verify → … → final_check.

`perfloop profile` runs the same graph with ``Settings.profile_only``: it ends after the first diagnosis.
"""
from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph

from perfloop.agent.executors import verify_node
from perfloop.agent.nodes.approve import approve
from perfloop.agent.nodes.diagnose import diagnose
from perfloop.agent.nodes.final_check import final_check
from perfloop.agent.nodes.optimize import optimize
from perfloop.agent.nodes.prepare import prepare
from perfloop.agent.nodes.profile import profile
from perfloop.agent.nodes.schedule import schedule
from perfloop.agent.state import LoopState

# Each rejected remedy loops schedule → optimize once; leave room for many of them.
RECURSION_LIMIT = 500
LEGACY_NODES = {"report": final_check}
"""Node names of earlier perfloops, kept so their checkpoints resume (``report`` was final_check)."""


def route_after_schedule(state: LoopState) -> Literal["optimize", "final_check", "__end__"]:
    if state.settings.profile_only:
        return END
    return "final_check" if state.stop_reason else "optimize"


def route_after_optimize(state: LoopState) -> Literal["approve", "schedule"]:
    return "approve" if state.proposal else "schedule"


def route_after_approve(state: LoopState) -> Literal["verify", "schedule", "final_check"]:
    if state.stop_reason:
        return "final_check"
    return "verify" if state.decision == "approve" else "schedule"


def route_after_verify(state: LoopState) -> Literal["profile", "schedule"]:
    accepted = state.history and state.history[-1].verdict.verdict == "accepted"
    return "profile" if accepted else "schedule"


def build_graph(checkpointer=None):
    """Compile the loop with ``checkpointer`` (SQLite in the CLI, in-memory in tests)."""
    graph = StateGraph(LoopState)
    for node in (prepare, profile, diagnose, schedule, optimize, approve, final_check):
        graph.add_node(node.__name__, node)
    graph.add_node("verify", verify_node)  # the cascade here, or as a block on a cluster (--executor ray)
    for name, node in LEGACY_NODES.items():
        graph.add_node(name, node)
        graph.add_edge(name, END)
    graph.add_edge(START, "prepare")
    graph.add_edge("prepare", "profile")
    graph.add_edge("profile", "diagnose")
    graph.add_edge("diagnose", "schedule")
    graph.add_conditional_edges("schedule", route_after_schedule)
    graph.add_conditional_edges("optimize", route_after_optimize)
    graph.add_conditional_edges("approve", route_after_approve)
    graph.add_conditional_edges("verify", route_after_verify)
    graph.add_edge("final_check", END)
    return graph.compile(checkpointer=checkpointer)
