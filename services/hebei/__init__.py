"""hebei: Hebei Mahjong (河北麻将) tournaments for bots and people."""

__version__ = "0.1.0"
