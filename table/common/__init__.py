"""The base every layer stands on: errors, input checks, data files, languages, the config."""
