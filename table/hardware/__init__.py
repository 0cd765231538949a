"""What the table reads and lights: stations (buttons, knobs), the LED hourglass,
the serial I/O bridge. Contracts in :mod:`table.hardware.interfaces`; real Pi
libraries are imported lazily inside the backends."""
