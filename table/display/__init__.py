"""Everything drawn on the score display: theme, screens, game renderers.

Nothing here reads hardware or clocks; screens get logical inputs and the time.
"""
