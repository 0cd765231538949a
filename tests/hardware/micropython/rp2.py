# The RP2040's rp2 module at its lowest edge (see machine.py beside this file): the PIO
# assembler decorator keeps the program as it is, and a state machine records the words
# put into its FIFO. There is no rp2.DMA, so the firmware takes its sm.put path.


class PIO:
    OUT_LOW = 0
    SHIFT_LEFT = 0


def asm_pio(**settings):
    def keep(program):
        return program

    return keep


class StateMachine:
    def __init__(self, sm_id, program, freq=0, sideset_base=None):
        if sm_id < 0 or sm_id > 7:
            raise ValueError("invalid state machine")
        self.id = sm_id
        self.running = False
        self.words = []

    def active(self, on=None):
        if on is not None:
            self.running = bool(on)
        return self.running

    def put(self, words):
        self.words.append(list(words))
