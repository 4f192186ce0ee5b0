"""Build the loop: prepare → profile → diagnose → optimize → approve → verify → (profile | diagnose) → report.

`perfloop profile` runs the same graph with ``Settings.profile_only``: it ends after diagnose.
"""
from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph

from perfloop.agent.nodes.approve import approve
from perfloop.agent.nodes.diagnose import diagnose
from perfloop.agent.nodes.optimize import optimize
from perfloop.agent.nodes.prepare import prepare
from perfloop.agent.nodes.profile import profile
from perfloop.agent.nodes.report import report
from perfloop.agent.nodes.verify import verify
from perfloop.agent.state import LoopState

# Each rejected remedy loops diagnose → optimize once; leave room for many of them.
RECURSION_LIMIT = 500


def route_after_diagnose(state: LoopState) -> Literal["optimize", "report", "__end__"]:
    if state.settings.profile_only:
        return END
    return "report" if state.stop_reason else "optimize"


def route_after_optimize(state: LoopState) -> Literal["approve", "diagnose"]:
    return "approve" if state.proposal else "diagnose"


def route_after_approve(state: LoopState) -> Literal["verify", "diagnose", "report"]:
    if state.stop_reason:
        return "report"
    return "verify" if state.decision == "approve" else "diagnose"


def route_after_verify(state: LoopState) -> Literal["profile", "diagnose"]:
    accepted = state.history and state.history[-1].verdict.verdict == "accepted"
    return "profile" if accepted else "diagnose"


def build_graph(checkpointer=None):
    """Compile the loop with ``checkpointer`` (SQLite in the CLI, in-memory in tests)."""
    graph = StateGraph(LoopState)
    for node in (prepare, profile, diagnose, optimize, approve, verify, report):
        graph.add_node(node.__name__, node)
    graph.add_edge(START, "prepare")
    graph.add_edge("prepare", "profile")
    graph.add_edge("profile", "diagnose")
    graph.add_conditional_edges("diagnose", route_after_diagnose)
    graph.add_conditional_edges("optimize", route_after_optimize)
    graph.add_conditional_edges("approve", route_after_approve)
    graph.add_conditional_edges("verify", route_after_verify)
    graph.add_edge("report", END)
    return graph.compile(checkpointer=checkpointer)
