from .dataset import PPGWindowStream, RHYTHMS

__all__ = ["PPGWindowStream", "RHYTHMS"]
