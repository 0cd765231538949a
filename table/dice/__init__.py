"""The dice tray camera: find the dice in a still frame and read their top faces.

Entry points: :func:`read_tray_image` (a picture file -> faces or None, for the
simulator), :func:`read_settled_throw` (a camera -> faces or None, for the table loop),
:class:`DiceReader` (frames -> :class:`DieReading` with boxes and confidences).
"""

from table.dice.reader import DiceReader, DieReading, read_settled_throw, read_tray_image, tray_faces

__all__ = ["DiceReader", "DieReading", "read_settled_throw", "read_tray_image", "tray_faces"]
