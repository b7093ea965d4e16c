import numpy as np
import pytest

from labelvar._base._seeding import MAX_SEED, as_seed, derive, generator


def test_large_seeds_are_exact():
    big = [2**53, 2**53 + 1, 2**62 + 12345, MAX_SEED]
    assert [as_seed(s) for s in big] == big
    assert len({derive(s, "x") for s in big}) == len(big)
    assert as_seed(np.int64(2**62 + 1)) == 2**62 + 1


@pytest.mark.parametrize("bad", [-1, MAX_SEED + 1, True, 1.5, "3", float(2**60), [1]])
def test_bad_seeds_are_refused(bad):
    with pytest.raises(ValueError, match=r"seed must be an int in \[0, 2\*\*63 - 1\]"):
        as_seed(bad)


def test_none_and_generator_give_a_reusable_int():
    s = as_seed(None)
    assert 0 <= s <= MAX_SEED
    assert as_seed(np.random.default_rng(3)) == as_seed(np.random.default_rng(3))
    a = generator(s, "stream").random(5)
    np.testing.assert_array_equal(a, generator(s, "stream").random(5))
    assert not np.array_equal(a, generator(s, "other").random(5))
