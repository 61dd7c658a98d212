"""Values users pass that come from NumPy or other libraries (session 19's own fixes)."""
import dataclasses
import json

import numpy as np
import pytest

import mj_env
from mj_env.rules import RuleError, get_rules


def test_rule_fields_take_numpy_scalars_as_plain_python_values():
    # A sweep over np.arange or a config loaded through NumPy hands over np.int64 / np.bool_ / np.str_:
    # the same rule set as the plain values, and it stays plain JSON.
    r = get_rules("beijing", base=np.int64(500), hui_wild_in_melds=np.True_, dealer_rotation=np.str_("next"))
    assert r == get_rules("beijing", base=500, hui_wild_in_melds=True, dealer_rotation="next")
    assert (type(r.base), type(r.hui_wild_in_melds), type(r.dealer_rotation)) == (int, bool, str)
    json.dumps(dataclasses.asdict(r))
    assert type(r.replace(hands_per_episode=np.int32(3)).hands_per_episode) is int
    env = mj_env.env(rules="hebei", base=np.uint16(7))
    env.reset(seed=0)
    assert env.rules.base == 7 and type(env.rules.base) is int


@pytest.mark.parametrize("field, bad", [("base", np.True_), ("base", np.float64(5)), ("chi", np.int64(1)),
                                        ("dealer_rotation", np.int64(0))])
def test_numpy_values_of_the_wrong_kind_are_still_refused(field, bad):
    with pytest.raises(RuleError, match=repr(field)):
        get_rules("beijing", **{field: bad})
