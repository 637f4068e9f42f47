#!/usr/bin/env python3
"""Writes the synthetic runs RunAnalysisTests reads, with known answers (see each run's comment).

Run from anywhere: python3 Tests/Fixtures/Runs/make_runs.py. Deterministic (fixed seed), stdlib only.
A jogger at 170 footsteps a minute and 3.0 m/s; each footstep carries a position wobbling up to
1.5 m on each axis (a phone's fix) and a compass heading wobbling up to 8 degrees (stride sway).
Columns: offset_ms,latitude,longitude,heading; an empty cell is an absent value.
"""

import math
import os
import random

CADENCE = 170
SPEED = 3.0
STRIDE = SPEED * 60 / CADENCE
ORIGIN = (52.52, 13.405)
EARTH = 6_371_008.8
GPS_WOBBLE = 1.5
COMPASS_WOBBLE = 8.0
HERE = os.path.dirname(os.path.abspath(__file__))


def simulate(seconds, heading_at, pauses=(), start_ms=0, seed=1):
    """Footsteps for `seconds` of clock time from the first footstep.

    heading_at(t): the direction of travel at t seconds. pauses: (t, gap_ms) pairs: the footstep at
    or after t is followed by the next exactly gap_ms later (the jogger stands still in between).
    """
    rng = random.Random(seed)
    pauses = sorted(pauses)
    samples = []
    east = north = 0.0
    base = 0
    step = 0
    while True:
        t = base + round(step * 60_000 / CADENCE)
        if t > seconds * 1000:
            break
        heading = heading_at(t / 1000) % 360
        lat = ORIGIN[0] + math.degrees((north + rng.uniform(-GPS_WOBBLE, GPS_WOBBLE)) / EARTH)
        lon = ORIGIN[1] + math.degrees(
            (east + rng.uniform(-GPS_WOBBLE, GPS_WOBBLE)) / (EARTH * math.cos(math.radians(ORIGIN[0])))
        )
        # Rounded before wrapping, so 359.97 is written 0.0, not 360.0.
        compass = round(heading + rng.uniform(-COMPASS_WOBBLE, COMPASS_WOBBLE), 1) % 360
        samples.append((start_ms + t, lat, lon, compass))
        if pauses and t >= pauses[0][0] * 1000:
            normal = round((step + 1) * 60_000 / CADENCE) - round(step * 60_000 / CADENCE)
            base += pauses.pop(0)[1] - normal
        east += STRIDE * math.sin(math.radians(heading))
        north += STRIDE * math.cos(math.radians(heading))
        step += 1
    return samples


def write(name, samples, positions=True, headings=True):
    lines = ["offset_ms,latitude,longitude,heading"]
    for offset, lat, lon, heading in samples:
        lines.append(
            f"{offset},{f'{lat:.7f}' if positions else ''},{f'{lon:.7f}' if positions else ''},"
            f"{f'{heading:.1f}' if headings else ''}"
        )
    with open(os.path.join(HERE, name), "w") as file:
        file.write("\n".join(lines) + "\n")


def schedule(start, changes):
    """heading_at for a heading `start` that jumps to each (t, heading) in `changes` at t."""

    def heading_at(t):
        heading = start
        for at, new in changes:
            if t >= at:
                heading = new
        return heading

    return heading_at


# 10 minutes straight at 355 degrees (the compass wobbles across north): 1,701 footsteps, cadence
# 170, 1,800 m, no pauses, no swerves.
write("steady.csv", simulate(600, schedule(355, [])))

# 8 minutes due east with pauses of 5.000 s, 30.000 s and 2.000 s after the footsteps at or after
# 60, 200 and 350 s, and a 1.999 s gap (not a pause) at 420 s: 3 pauses, 37 s of them.
write("pauses.csv", simulate(480, schedule(90, []), pauses=[(60, 5000), (200, 30000), (350, 2000), (420, 1999)]))

# 6 minutes from 1.5 s after the run's start, north, then the heading alternates between 45 and
# 315 degrees (+45 first, then 90-degree turns); 14 swerves. Minute 1: 4 swerves (weaving);
# minute 2: 3 (not); minute 3: 2 swerves and pauses of 3 s and 2.5 s at 190 and 230 s (weaving);
# minute 4: 5 (weaving).
ZIGZAG = [65, 80, 95, 110, 130, 150, 170, 200, 220, 250, 260, 270, 280, 290]
zigzag = simulate(
    360,
    schedule(0, [(t, 45 if i % 2 == 0 else 315) for i, t in enumerate(ZIGZAG)]),
    pauses=[(190, 3000), (230, 2500)],
    start_ms=1500,
)
write("zigzag.csv", zigzag)
write("zigzag_positions.csv", zigzag, headings=False)
write("zigzag_headings.csv", zigzag, positions=False)


def out_and_back(t):
    """North for 150 s, a clockwise turn-around over 2 s, south again."""
    return 0 if t < 150 else (180 if t >= 152 else 90 * (t - 150))


# 5 minutes: out 450 m north and back; the turn-around is not a swerve: none at all.
there_and_back = simulate(300, out_and_back, seed=2)
write("out_and_back.csv", there_and_back)
write("out_and_back_positions.csv", there_and_back, headings=False)
write("out_and_back_headings.csv", there_and_back, positions=False)
