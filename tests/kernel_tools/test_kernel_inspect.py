"""Listing and describing the kernel's variables: metadata and aggregates only, never a value, never an exception.

The data is the real Palmer penguins table; the egress property fills frames and variables with
canary values and asserts that none of them leaves, in any of its string forms. A canary number
has at least seven significant digits: rounding to four cannot reproduce it, whereas a small
integer such as 3 may of course coincide with a count.
"""

import datetime
import json
import math
import sys
import types
import uuid

import numpy as np
import palmerpenguins
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_tools.kernel_tools import Ledger
from notebook_tools.kernel_tools._inspect import describe, list_variables


def dumps(result):
    """The JSON the model would get; NaN or infinity is a failure (`allow_nan=False`)."""
    return json.dumps(result, allow_nan=False)


def by_name(entries):
    return {entry["name"]: entry for entry in entries}


def significant(number, digits=4):
    return float(f"{number:.{digits}g}")


# -- the penguins ---------------------------------------------------------------------------------


def test_penguins_listed_with_columns_and_dtypes():
    df = palmerpenguins.load_penguins()
    listing = list_variables({"penguins": df})
    assert listing["more"] == 0
    [entry] = listing["variables"]
    assert entry["name"] == "penguins"
    assert entry["type"] == "DataFrame"
    assert entry["shape"] == [344, 8]
    assert entry["memory"] == int(df.memory_usage(deep=True).sum())
    assert "memory_estimated" not in entry
    assert entry["columns"] == [{"name": str(c), "dtype": str(t)} for c, t in df.dtypes.items()]
    assert "Adelie" not in dumps(listing)


def test_penguins_described_by_aggregates():
    df = palmerpenguins.load_penguins()
    result = describe(df)
    text = dumps(result)
    for label in ("Adelie", "Chinstrap", "Gentoo", "Biscoe", "Dream", "Torgersen", "female", "male"):
        assert label not in text
    assert result["type"] == "DataFrame"
    assert result["shape"] == [344, 8]
    columns = by_name(result["columns"])
    assert list(columns) == list(df.columns)
    nulls = df.isna().sum()
    distinct = df.nunique()
    for name, column in columns.items():
        assert column["dtype"] == str(df[name].dtype)
        assert column["nulls"] == nulls[name]
        assert column["distinct"] == distinct[name]
    assert columns["sex"]["nulls"] == 11
    mass = columns["body_mass_g"]
    values = df["body_mass_g"].dropna()
    assert mass["mean"] == significant(values.mean()) == 4202.0
    assert mass["std"] == significant(values.std())
    assert mass["min"] == 2700.0 and mass["max"] == 6300.0
    assert mass["p25"] == significant(values.quantile(0.25))
    bill = columns["bill_length_mm"]
    assert bill["mean"] == significant(df["bill_length_mm"].mean()) == 43.92
    for column in columns.values():  # every numeric aggregate has four significant digits at most
        for key in ("mean", "std", "min", "p25", "p50", "p75", "max"):
            if key in column:
                assert column[key] == significant(column[key])
    species = columns["species"]
    assert set(species) == {"name", "dtype", "nulls", "distinct", "min_length", "max_length", "mean_length"}
    assert (species["min_length"], species["max_length"]) == (6, 9)  # "Gentoo"/"Adelie", "Chinstrap"


def test_penguins_categorical_count_without_labels():
    df = palmerpenguins.load_penguins().astype({"species": "category", "island": "category"})
    column = by_name(describe(df)["columns"])["species"]
    assert column["categories"] == 3
    assert column["distinct"] == 3
    text = dumps(describe(df)) + dumps(describe(df["island"])) + dumps(list_variables({"df": df}))
    for label in ("Adelie", "Biscoe", "female"):
        assert label not in text


def test_series_index_and_array():
    df = palmerpenguins.load_penguins()
    series = describe(df["flipper_length_mm"])
    assert series["type"] == "Series"
    assert series["shape"] == [344]
    assert series["series_name"] == "flipper_length_mm"
    assert "name" not in series  # the toolset puts the variable's name there
    assert series["nulls"] == 2 and series["distinct"] == 55
    assert series["max"] == 231.0
    array = df["bill_depth_mm"].to_numpy()
    described = describe(array)
    assert described["shape"] == [344] and described["dtype"] == "float64"
    assert described["nans"] == 2
    assert described["memory"] == array.nbytes
    assert described["mean"] == significant(np.nanmean(array))
    assert describe(np.array([True, False, True]))["true"] == 2
    assert describe(df.index)["shape"] == [344]


def test_other_dtypes():
    frame = pd.DataFrame(
        {
            "when": pd.to_datetime(["2021-03-04 12:34:56", None, "2021-03-10 01:02:03"]).tz_localize(
                "Europe/Paris"
            ),
            "took": pd.to_timedelta([1.23456, None, 7200.5], unit="s"),
            "flag": pd.array([True, None, True], dtype="boolean"),
            "count": pd.array([1234567, None, 7654321], dtype="Int64"),
            "bags": [[1, 2], {"a": 1}, None],
            "z": [1 + 2j, 3j, None],
        }
    )
    columns = by_name(describe(frame)["columns"])
    assert columns["when"]["min"] == "2021-03-04"
    assert columns["when"]["max"] == "2021-03-10"
    assert columns["when"]["range_days"] == 5
    assert columns["took"]["min_seconds"] == 1.235
    assert columns["took"]["max_seconds"] == 7200.0
    assert columns["flag"]["true"] == 2
    assert columns["flag"]["nulls"] == 1
    assert columns["count"]["max"] == 7654000.0
    assert columns["count"]["min"] == 1235000.0
    assert columns["bags"]["distinct"] is None  # unhashable cells
    assert columns["bags"]["nulls"] == 1
    assert columns["z"]["nulls"] == 1
    text = dumps(describe(frame))
    for value in ("12:34", "1234567", "7654321", "1.23456"):
        assert value not in text


def test_a_single_row_and_empty_frames():
    one = describe(pd.DataFrame({"x": [918273.645]}))
    [column] = one["columns"]
    assert column["max"] == column["mean"] == 918300.0
    assert column["std"] is None
    assert "918273" not in dumps(one)
    empty = describe(pd.DataFrame({"x": pd.Series([], dtype="float64"), "s": pd.Series([], dtype=object)}))
    assert [c["nulls"] for c in empty["columns"]] == [0, 0]
    assert dumps(describe(pd.DataFrame())) and dumps(describe(np.array([])))
    infinite = describe(pd.Series([math.inf, -math.inf, math.nan, 1.5]))
    assert infinite["mean"] == infinite["max"] == 1.5


def test_wide_frame_is_bounded():
    wide = pd.DataFrame(np.zeros((2, 250)))
    entry = list_variables({"wide": wide})["variables"][0]
    assert len(entry["columns"]) == 200 and entry["columns_more"] == 50
    result = describe(wide)
    assert len(result["columns"]) == 200 and result["columns_more"] == 50


def test_duplicate_column_names():
    frame = pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])
    result = describe(frame)
    assert [c["name"] for c in result["columns"]] == ["a", "a"]
    assert "error" not in result


def test_builtins_by_length_and_types_only():
    assert describe([1, "x", 2.5, None]) == {
        "type": "list",
        "length": 4,
        "element_types": {"int": 1, "str": 1, "float": 1, "NoneType": 1},
    }
    assert describe({"secret-key": [1], 2: "secret-value"}) == {
        "type": "dict",
        "length": 2,
        "key_types": {"str": 1, "int": 1},
        "value_types": {"list": 1, "str": 1},
    }
    assert describe("secret") == {"type": "str", "length": 6}
    assert describe(b"secret") == {"type": "bytes", "length": 6}
    assert describe((1, 2)) == {"type": "tuple", "length": 2, "element_types": {"int": 2}}
    for scalar in (3, 2.5, True, None, 1j, np.int64(7), datetime.date(2020, 1, 2)):
        result = describe(scalar)
        assert set(result) == {"type", "note"}, result
    listing = by_name(list_variables({"xs": [1, 2, 3], "word": "secret", "n": 918273645})["variables"])
    assert listing["xs"]["length"] == 3
    assert listing["word"] == {"name": "word", "type": "str", "length": 6, "memory": sys.getsizeof("secret")}
    assert "918273645" not in dumps(listing)


def test_other_objects_by_attribute_names():
    class Reading:
        unit = "mm"

        def __init__(self):
            self.level = "secret-level"
            self.shape = (3, 4)

        @property
        def computed(self):
            raise AssertionError("a property must not run")

        def method(self):
            return 1

    result = describe(Reading())
    assert result["type"] == "Reading"
    assert result["shape"] == [3, 4]
    assert result["attributes"] == ["computed", "level", "shape", "unit"]
    assert "secret-level" not in dumps(result)
    entry = list_variables({"reading": Reading()})["variables"][0]
    assert entry == {"name": "reading", "type": "Reading", "shape": [3, 4]}


# -- filtering ------------------------------------------------------------------------------------


def test_code_private_names_and_our_own_objects_are_left_out():
    class Plain:
        pass

    class Slider:  # a widget, as ipywidgets or anywidget would define it
        pass

    Slider.__module__ = "ipywidgets.widgets.widget_int"
    AnySlider = type("AnySlider", (), {"__module__": "anywidget.widget"})

    namespace = {
        "pd": pd,
        "np": np,
        "json": json,
        "helper": lambda x: x,
        "by_name": by_name,
        "print": print,
        "append": [].append,
        "Plain": Plain,
        "_hidden": 1,
        "__builtins__": {},
        "_i3": "df.head()",
        "In": ["", "x = 1"],
        "Out": {1: 2},
        "exit": object(),
        "quit": object(),
        "get_ipython": lambda: None,
        "open": open,
        "ledger": Ledger(),
        "slider": Slider(),
        "any_slider": AnySlider(),
        "kept": Plain(),
        "x": 1,
        42: "not a name",
    }
    names = [entry["name"] for entry in list_variables(namespace)["variables"]]
    assert names == ["kept", "x"]


def test_bounded_to_500_variables():
    namespace = {f"v{i:04d}": i for i in range(620)}
    namespace["_private"] = 0
    listing = list_variables(namespace)
    assert len(listing["variables"]) == 500
    assert listing["more"] == 120
    assert listing["variables"][0]["name"] == "v0000"
    assert listing["variables"][-1]["name"] == "v0499"


def test_an_unreadable_namespace():
    class Broken(dict):
        def __iter__(self):
            raise RuntimeError("no")

    listing = list_variables(Broken(a=1))
    assert listing["variables"] == [] and listing["error"]


# -- hostile objects ------------------------------------------------------------------------------


class Hostile:
    """Everything it is asked raises."""

    def __getattr__(self, name):
        raise RuntimeError(f"hostile {name}")

    def __len__(self):
        raise RuntimeError("hostile len")

    def __iter__(self):
        raise RuntimeError("hostile iter")

    def __dir__(self):
        raise RuntimeError("hostile dir")

    def __repr__(self):
        raise AssertionError("repr must not be called")

    __str__ = __repr__


class FakeClass:
    @property
    def __class__(self):
        raise RuntimeError("hostile __class__")


class JunkShape:
    def __init__(self, shape):
        self.shape = shape

    def __dir__(self):
        return ["not an identifier", "_private", "shape", "missing"]  # any strings a __dir__ likes


class RaisingShape:
    @property
    def shape(self):
        raise ValueError("no shape")


class SneakyList(list):
    def __len__(self):
        raise AssertionError("an overridden __len__ must not run")

    def __iter__(self):
        raise AssertionError("an overridden __iter__ must not run")


class HostileMeta(type):
    @property
    def __name__(cls):
        raise RuntimeError("no name")


class NamelessType(metaclass=HostileMeta):
    pass


HOSTILE = {
    "raising-everything": Hostile,
    "fake-class": FakeClass,
    "raising-shape": RaisingShape,
    "shape-str": lambda: JunkShape("abc"),
    "shape-mixed": lambda: JunkShape((1, "x")),
    "shape-huge-int": lambda: JunkShape((10**5000,)),
    "shape-negative": lambda: JunkShape((-1, 2)),
    "shape-long": lambda: JunkShape(tuple(range(100))),
    "shape-list": lambda: JunkShape([1, 2]),
    "nameless-type": NamelessType,
    "sneaky-list": lambda: SneakyList([1, 2, 3]),
}


@pytest.mark.parametrize("make", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_objects_never_raise(make):
    value = make()
    listing = list_variables({"v": value})
    [entry] = listing["variables"]
    assert entry["name"] == "v"
    assert isinstance(entry["type"], str)
    assert "shape" not in entry or all(isinstance(d, int) and 0 <= d < 2**63 for d in entry["shape"])
    dumps(listing)
    result = describe(value)
    assert isinstance(result["type"], str)
    dumps(result)


def test_hostile_details():
    assert list_variables({"h": Hostile()})["variables"] == [
        {"name": "h", "type": "Hostile", "error": "could not be inspected"}
    ]
    assert describe(Hostile()) == {"type": "Hostile", "attributes": []}  # its `shape` and `dir()` raised
    assert describe(JunkShape((1, "x"))) == {"type": "JunkShape", "attributes": ["shape"]}
    assert describe(SneakyList([1, 2, 3])) == {"type": "SneakyList", "length": 3, "element_types": {"int": 3}}
    assert describe(NamelessType())["type"] == "object"


class Unprintable:
    def __str__(self):
        raise RuntimeError("hostile str")

    __repr__ = __str__


def test_a_hostile_column_leaves_the_others_described():
    frame = pd.DataFrame({"bad": [Unprintable(), Unprintable()], "good": [1.5, 2.5]})
    bad, good = describe(frame)["columns"]
    assert bad == {"name": "bad", "dtype": "object", "error": "could not be described: RuntimeError"}
    assert good["mean"] == 2.0
    assert "error" not in list_variables({"frame": frame})["variables"][0]


def test_huge_values_are_sampled_not_walked():
    # bounded work, shown by what was looked at (10,000 elements), not by a time a loaded machine may miss
    huge = [0] * 10_000_000
    big_dict = dict.fromkeys(range(2_000_000), 0.5)
    assert list_variables({"huge": huge})["variables"][0]["length"] == 10_000_000
    assert describe(huge)["element_types"] == {"int": 10_000}
    assert describe(big_dict)["value_types"] == {"float": 10_000}


def test_two_million_rows_are_listed_with_estimated_memory_and_described():
    rows = 2_000_000
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=rows),
            "label": pd.Series(rng.integers(0, 1000, size=rows)).astype(str).astype(object),
            "when": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 10**8, size=rows), unit="s"),
        }
    )
    entry = list_variables({"frame": frame})["variables"][0]
    result = describe(frame)
    assert entry["memory_estimated"] is True  # the cheap count: object cells are not measured one by one
    assert "error" not in result
    assert by_name(result["columns"])["label"]["distinct"] == 1000


# -- egress ---------------------------------------------------------------------------------------


def canary_text():
    return st.builds(lambda: f"CANARY{uuid.uuid4().hex[:10]}")


# At least seven digits, the last one not zero: seven significant digits that rounding to four removes.
canary_int = (
    st.integers(min_value=10**6, max_value=10**12)
    .filter(lambda n: n % 10 != 0)
    .map(lambda n: n if n % 2 else -n)
)
canary_float = st.builds(
    lambda whole, fraction: float(f"{whole}.{fraction}"),
    st.integers(min_value=1_000, max_value=10**6),
    st.integers(min_value=100_001, max_value=999_999).filter(lambda n: n % 10 != 0),
)
canary_time = st.builds(
    lambda day, second: pd.Timestamp("2001-01-01") + pd.Timedelta(days=day, seconds=second),
    st.integers(min_value=0, max_value=9000),
    st.integers(min_value=1, max_value=86_399),
)


@st.composite
def canary_frames(draw):
    rows = draw(st.integers(min_value=1, max_value=40))
    texts = [draw(canary_text()) for _ in range(rows)]
    ints = draw(st.lists(canary_int, min_size=rows, max_size=rows))
    floats = draw(st.lists(canary_float, min_size=rows, max_size=rows))
    times = draw(st.lists(canary_time, min_size=rows, max_size=rows))
    labels = [draw(canary_text()) for _ in range(3)]
    nested = [draw(st.sampled_from([[t], {t: i}, {"k": t}])) for t, i in zip(texts, ints, strict=True)]
    frame = pd.DataFrame(
        {
            "text": texts,
            "number": ints,
            "amount": floats,
            "when": times,
            "when_utc": pd.DatetimeIndex(times).tz_localize("UTC"),
            "label": pd.Categorical([labels[i % 3] for i in range(rows)], categories=labels),
            "nested": nested,
            "text_object": pd.Series(texts, dtype=object),
        }
    )
    canaries = [*texts, *ints, *floats, *times, *labels]
    return frame, canaries


def forms(canary):
    """Every string form a canary could leave in."""
    found = {str(canary), repr(canary)}
    if isinstance(canary, pd.Timestamp):
        found |= {canary.isoformat(), str(canary.to_pydatetime())}
    if isinstance(canary, float):
        found.add(json.dumps(canary))
    return found


@settings(max_examples=60, deadline=None)
@given(canary_frames(), st.lists(canary_text(), min_size=1, max_size=5), canary_int, canary_float)
def test_no_canary_leaves(frame_and_canaries, words, number, amount):
    frame, canaries = frame_and_canaries
    namespace = {
        "frame": frame,
        "column": frame["text"],
        "labels": frame["label"],
        "array": frame["number"].to_numpy(),
        "amounts": frame["amount"].to_numpy(),
        "word": words[0],
        "words": list(words),
        "lookup": {word: word for word in words},
        "pairs": tuple((word, number) for word in words),
        "number": number,
        "amount": amount,
        "blob": words[0].encode(),
        "record": types.SimpleNamespace(value=words[0]),
    }
    canaries = [*canaries, *words, number, amount]
    sent = [dumps(list_variables(namespace)), *(dumps(describe(value)) for value in namespace.values())]
    for name, value in namespace.items():
        assert "error" not in describe(value), name
    text = "\n".join(sent)
    for canary in canaries:
        for form in forms(canary):
            assert form not in text, form
