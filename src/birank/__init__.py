"""birank: large-scale bipartite ranking without enumerating pairs."""

__version__ = "0.1.0.dev0"

__all__ = []
