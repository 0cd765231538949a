# The I/O bridge's wiring (Pico GPIO numbers, GP0 = 0). One dict per station in
# seating order: "button" and "led" of the big button; the knob is either
# "encoder": (A, B) with "switch", or "data": [four lines, least significant first]
# for a 16-position absolute switch (CODE says "gray" or "binary").
# Switches go to GND (pull-ups are on); LEDs through a resistor to GND.

STATIONS = [
    {"button": 2, "led": 3, "encoder": (4, 5), "switch": 6},
    {"button": 7, "led": 8, "encoder": (9, 10), "switch": 11},
    {"button": 12, "led": 13, "encoder": (14, 15), "switch": 16},
    {"button": 17, "led": 18, "encoder": (19, 20), "switch": 21},
]
CODE = "gray"

LED_PIN = 22    # WS2812 data (through a 3.3 V -> 5 V level shifter for long strips)
LED_COUNT = 60
