"""Playing a game without hardware: the session, its journal, scenarios, random play, clocks."""
