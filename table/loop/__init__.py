"""The table loop and what it drives: LEDs, sounds, speech, the tray watcher."""
