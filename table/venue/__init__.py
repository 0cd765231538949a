"""The venue: many tables on one wall screen over MQTT (docs/venue.md).

``contract`` (topics, payloads, schema), ``follow`` (the journal read as a stream of
messages), ``relay`` (``table relay``), ``store`` and ``server`` (``table venue``),
``settings`` (their config files) and ``broker`` (a throw-away Mosquitto for tests and
the benchmark). Nothing here imports the display or the hardware.
"""
