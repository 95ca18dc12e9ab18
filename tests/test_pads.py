"""benchtools/trial/pads.py: the calibration's line through two paddings."""

import pytest


@pytest.mark.parametrize("fixed, per_pad, percent", [(0.01, 0.001, 3), (0.0, 0.002, 5), (0.017, 0.0009, 3)])
def test_the_calibration_solves_the_line_through_two_paddings(fixed, per_pad, percent):
    from benchtools.trial import pads

    near = 20
    found = pads.pads_on_line(percent, near, fixed + near * per_pad, fixed + 2 * near * per_pad)
    assert found == round((percent / 100 - fixed) / per_pad)
    assert abs(fixed + found * per_pad - percent / 100) <= per_pad / 2 + 1e-12


def test_the_calibration_refuses_what_it_cannot_make():
    from benchtools import errors
    from benchtools.trial import pads

    with pytest.raises(errors.Error, match="padding alone costs"):
        pads.pads_on_line(1, 10, 0.02, 0.025)  # the fixed cost (1.5%) is above 1%
    with pytest.raises(errors.Error, match="too noisy"):
        pads.pads_on_line(3, 10, 0.03, 0.029)
