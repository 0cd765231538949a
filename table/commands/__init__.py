"""Sub-commands of ``table``; each module defines ``register(subparsers)``."""
