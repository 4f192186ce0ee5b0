"""A label tree stored the way it arrives from the annotation tool: a flat list of child->parent edges."""
from dataclasses import dataclass, field
from typing import List, Optional


@dataclass(frozen=True)
class Edge:
    child: str
    parent: str


@dataclass
class Taxonomy:
    edges: List[Edge] = field(default_factory=list)
    labels: List[str] = field(default_factory=list)     # every node, multi-hot index order

    @classmethod
    def build(cls, branching):
        """Breadth-first tree with the given fan-out per level; node names are tree numbers."""
        tax = cls()
        level = [f"T{i:02d}" for i in range(branching[0])]
        tax.labels.extend(level)
        for fan_out in branching[1:]:
            nxt = []
            for parent in level:
                for k in range(fan_out):
                    child = f"{parent}.{k:02d}"
                    tax.edges.append(Edge(child, parent))
                    nxt.append(child)
            tax.labels.extend(nxt)
            level = nxt
        return tax

    def parent_of(self, label) -> Optional[str]:
        for edge in self.edges:
            if edge.child == label:
                return edge.parent
        return None

    def ancestors(self, label):
        """Parents up to the root, nearest first."""
        chain = []
        parent = self.parent_of(label)
        while parent is not None:
            chain.append(parent)
            parent = self.parent_of(parent)
        return chain
