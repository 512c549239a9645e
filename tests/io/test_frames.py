"""pandas DataFrames straight into TabularNB (textnb.io.frames)."""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline

from textnb import TabularNB, load, table_from_frame
from textnb.core.errors import DataWarning
from textnb.io.frames import encode_frame, frame_attributes, is_frame

pd = pytest.importorskip("pandas")


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    n = 90
    cls = rng.choice(["a", "b"], n)
    df = pd.DataFrame({
        "colour": np.where(cls == "a", rng.choice(["red", "green"], n, p=[0.8, 0.2]),
                           rng.choice(["red", "green"], n, p=[0.2, 0.8])).astype(object),
        "size": np.where(cls == "a", 0.0, 2.0) + rng.normal(size=n),
        "flag": rng.choice([True, False], n),
        "kind": pd.Categorical(rng.choice(["x", "y", "z"], n), categories=["z", "y", "x"]),
        "count": rng.integers(0, 5, n),
        "cls": cls,
    })
    df.loc[3, "size"] = np.nan
    df.loc[4, "colour"] = None
    df.loc[5, "kind"] = np.nan
    return df


def test_kinds_and_missing(frame):
    X = frame.drop(columns="cls")
    attrs = {a.name: a for a in frame_attributes(X)}
    assert attrs["colour"].kind == attrs["flag"].kind == attrs["kind"].kind == "nominal"
    assert attrs["size"].kind == attrs["count"].kind == "numeric"
    assert attrs["kind"].values == ["z", "y", "x"]  # categories in their order
    enc = encode_frame(X, frame_attributes(X))
    assert is_frame(enc) and list(enc.columns) == list(X.columns)
    assert np.isnan(enc.loc[3, "size"]) and np.isnan(enc.loc[4, "colour"]) and np.isnan(enc.loc[5, "kind"])


def test_same_model_as_table_from_frame(frame):
    X, y = frame.drop(columns="cls"), frame["cls"]
    direct = TabularNB().fit(X, y)
    table = table_from_frame(frame, "cls")
    via_table = TabularNB(attributes=tuple(table.attributes)).fit(table.X, table.y)
    assert np.allclose(direct.predict_proba(X), via_table.predict_proba(table.X))
    assert list(direct.feature_names_in_) == list(X.columns)
    assert direct.score(X, y) > 0.7


def test_unseen_value_is_missing_and_columns_checked(frame):
    X, y = frame.drop(columns="cls"), frame["cls"]
    m = TabularNB().fit(X, y)
    row = X.iloc[[0]].copy()
    unseen = row.copy()
    unseen["colour"] = ["purple"]
    missing = row.copy()
    missing["colour"] = [None]
    # said, as the command line says it of a table's cells (found by a user trial: a bool column queried with
    # 1 was missing without a word)
    with pytest.warns(DataWarning, match=r"column 'colour': 1 cell with values the model never saw \('purple'\)"):
        seen_unseen = m.predict_proba(unseen)
    assert np.allclose(seen_unseen, m.predict_proba(missing))
    with pytest.raises(ValueError):
        m.predict(X[["size", "colour", "flag", "kind", "count"]])  # columns in another order
    with pytest.raises(ValueError, match="numeric"):
        m.predict(X.assign(size=["big"] * len(X)))


def test_pipelines_cv_grid_partial_fit_and_model_files(frame, tmp_path):
    X, y = frame.drop(columns="cls"), frame["cls"]
    assert cross_val_score(TabularNB(), X, y, cv=3).mean() > 0.6
    assert cross_val_score(make_pipeline(TabularNB()), X, y, cv=3).mean() > 0.6
    grid = GridSearchCV(make_pipeline(TabularNB()), {"tabularnb__alpha": [0.5, 1.0]}, cv=3).fit(X, y)
    assert grid.best_score_ > 0.6
    whole = TabularNB().fit(X, y)
    parts = TabularNB().partial_fit(X.iloc[:50], y.iloc[:50], classes=["a", "b"]).partial_fit(X.iloc[50:], y.iloc[50:])
    assert np.allclose(whole.theta_, parts.theta_)
    whole.save(tmp_path / "m.tnb")
    assert np.allclose(load(tmp_path / "m.tnb").predict_proba(X), whole.predict_proba(X))


def test_tan_and_bayes_net_take_frames(frame, tmp_path):
    from textnb import TAN, BayesNetClassifier

    X, y = frame.drop(columns="cls"), frame["cls"]
    with pytest.raises(ValueError, match="numeric='mdl'"):
        TAN().fit(X, y)  # the float column 'size' is numeric: TAN asks for a discretisation
    tan = TAN(numeric="mdl").fit(X, y)
    assert tan.score(X, y) > 0.7
    assert cross_val_score(TAN(numeric="mdl"), X, y, cv=3).mean() > 0.6
    tan.save(tmp_path / "tan.tnb")
    assert np.allclose(load(tmp_path / "tan.tnb").predict_proba(X), tan.predict_proba(X))
    # nominal columns only: the same model as through table_from_frame
    nominal = frame.drop(columns=["size", "count"])
    table = table_from_frame(nominal, "cls")
    direct = BayesNetClassifier().fit(nominal.drop(columns="cls"), nominal["cls"])
    via = BayesNetClassifier(attributes=tuple(table.attributes)).fit(table.X, table.y)
    assert np.allclose(direct.predict_proba(nominal.drop(columns="cls")), via.predict_proba(table.X))
    # refitting on an array forgets the frame's attributes
    assert not hasattr(TAN(numeric="mdl").fit(X, y).fit(table.X, table.y), "frame_attributes_")


def test_lbr_takes_frames(frame, tmp_path):
    from textnb import LBR

    nominal = frame.drop(columns=["size", "cls"])
    y = frame["cls"]
    lbr = LBR().fit(nominal, y)
    assert lbr.score(nominal, y) > 0.7
    assert [a.name for a in lbr.frame_attributes_] == list(nominal.columns)
    lbr.save(tmp_path / "lbr.tnb")
    assert np.array_equal(load(tmp_path / "lbr.tnb").predict(nominal), lbr.predict(nominal))
    table = table_from_frame(frame.drop(columns=["size", "count"]), "cls")
    direct = LBR().fit(frame[["colour", "flag", "kind"]], y)
    via = LBR().fit(table.X, table.y, attributes=table.attributes)
    assert np.allclose(direct.predict_proba(frame[["colour", "flag", "kind"]]), via.predict_proba(table.X))
    with pytest.raises(ValueError, match="LBR needs nominal"):
        LBR().fit(frame.drop(columns="cls"), y)  # 'size' is numeric
    assert cross_val_score(LBR(), nominal, y, cv=3).mean() > 0.6


def test_apnbc_over_tabularnb_takes_frames(frame):
    from textnb import APNBC

    X, y = frame.drop(columns="cls"), frame["cls"]
    for fit_on in ("resubstitution", "cv"):
        m = APNBC(TabularNB(), fit_on=fit_on).fit(X, y)
        assert list(m.feature_names_in_) == list(X.columns)
        assert m.score(X, y) > 0.7
    assert cross_val_score(APNBC(TabularNB()), X, y, cv=3).mean() > 0.6
    grid = GridSearchCV(APNBC(TabularNB()), {"significance": [0.05, 1.0]}, cv=3).fit(X, y)
    assert grid.best_score_ > 0.6


def test_discretized_lbr_takes_mixed_frames(frame, tmp_path):
    from textnb import LBR, Discretized

    X, y = frame.drop(columns="cls"), frame["cls"]
    m = Discretized(LBR()).fit(X, y)
    assert m.score(X, y) > 0.7
    assert [a.kind for a in m.attributes_] == ["nominal", "numeric", "nominal", "nominal", "numeric"]
    m.save(tmp_path / "d.tnb")
    assert np.array_equal(load(tmp_path / "d.tnb").predict(X), m.predict(X))
    assert cross_val_score(Discretized(LBR()), X, y, cv=3).mean() > 0.6


def test_apnbc_takes_the_frames_its_base_model_takes():
    """The README says APNBC(TabularNB()) takes DataFrames the same way; a frame of a
    category column was refused inside pandas ('Cannot cast str dtype to float64')."""
    import textnb

    df = pd.DataFrame({"outlook": pd.Categorical(["sunny", "rain", "overcast", "sunny"] * 3),
                       "windy": [True, False, True, False] * 3})
    y = ["no", "yes", "yes", "no"] * 3
    m = textnb.APNBC(textnb.TabularNB()).fit(df, y)
    assert list(m.feature_names_in_) == ["outlook", "windy"]
    assert m.predict(df).tolist() == textnb.TabularNB().fit(df, y).predict(df).tolist() == y


def test_a_frame_with_its_columns_reordered_is_refused_naming_the_order():
    """It said "column 'outlook' is numeric in the model but holds str values" (outlook
    is nominal); scikit-learn's models say the feature names must be in the same order."""
    df = pd.DataFrame({"outlook": ["sunny", "rain", "overcast", "sunny"], "temperature": [85, 70, 64, 72],
                       "windy": [True, False, True, False]})
    m = TabularNB().fit(df, ["no", "yes", "yes", "no"])
    with pytest.raises(ValueError, match="The feature names should match those that were passed during fit: the "
                                         "same columns in another order"):
        m.predict(df[["windy", "outlook", "temperature"]])


@pytest.mark.parametrize("name", ["CategoricalNB", "GaussianNB", "TabularNB", "AODE", "TAN"])
def test_table_models_record_the_frame_column_names(tmp_path, name):
    """Every table model fitted on a DataFrame records ``feature_names_in_``, predicts a
    frame without warning (CategoricalNB said "X has feature names, but CategoricalNB was
    fitted without feature names" on every predict and every cross_val_score fold), keeps
    the names in its model file and refuses the same columns in another order."""
    import warnings

    import textnb

    X = pd.DataFrame({"a": [0, 1, 2, 0, 1, 2] * 3, "b": [1, 0, 1, 0, 1, 0] * 3})
    y = [0, 0, 1, 1, 0, 1] * 3
    make = getattr(textnb, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = make().fit(X, y)
        model.predict(X)
        cross_val_score(make(), X, y, cv=3)
    assert list(model.feature_names_in_) == ["a", "b"]
    model.save(tmp_path / "m.tnb")
    assert list(load(tmp_path / "m.tnb").feature_names_in_) == ["a", "b"]
    with pytest.raises(ValueError, match="The feature names should match those that were passed during fit"):
        model.predict(X[["b", "a"]])


@pytest.mark.parametrize("name", ["TabularNB", "AODE"])
def test_a_later_batch_with_a_new_value_widens_the_attribute_for_frames_and_arrays(tmp_path, name):
    """A value first seen in a later ``partial_fit`` batch is counted, as ``fit`` on all the
    batches counts it, whether the batches are DataFrames or (AODE) arrays of value indices,
    and after a model file's round trip (the frame's 'c' was dropped as missing: AODE gave
    0.5 / 0.5 where fit gave 0.21 / 0.79; AODE's array batch raised 'fixed on the first
    call to partial_fit')."""
    import textnb

    make = getattr(textnb, name)
    X = pd.DataFrame({"colour": ["a", "b", "a", "b", "c", "c", "a", "c"],
                      "size": ["s", "l", "s", "l", "s", "l", "l", "s"]})
    y = np.array([0, 1, 0, 1, 1, 1, 0, 1])
    whole = make().fit(X, y)
    first = make().partial_fit(X.iloc[:4], y[:4], classes=[0, 1])
    first.save(tmp_path / "m.tnb")
    for parts in (first, load(tmp_path / "m.tnb")):
        parts.partial_fit(X.iloc[4:], y[4:])
        assert np.allclose(parts.predict_proba(X), whole.predict_proba(X))
        assert whole.predict_proba(X.iloc[4:5])[0, 1] > 0.7
    if name == "AODE":  # value indices: an undeclared column grows to its largest index + 1
        codes = np.array([[0, 0], [1, 1], [0, 0], [1, 1], [2, 0], [2, 1], [0, 1], [2, 0]], dtype=float)
        parts = make().partial_fit(codes[:4], y[:4], classes=[0, 1]).partial_fit(codes[4:], y[4:])
        assert np.allclose(parts.predict_proba(codes), make().fit(codes, y).predict_proba(codes))
        assert np.array_equal(parts.pair_count_, make().fit(codes, y).pair_count_)


def test_a_later_batch_cannot_turn_a_column_the_first_made_nominal_numeric():
    """Found by a library hunt: AODE makes a DataFrame's column of whole numbers nominal
    (as its array input is value indices); when only the first ``partial_fit`` batch's
    numbers were whole, a later batch's fractions were added as new nominal values without
    a word, a model unlike ``fit``'s (probabilities 0.589 apart, a query's 3.33 missing).
    A later batch must not change what the first decided: it is refused, naming the
    column and the remedy, the model left as it was; new whole numbers still widen it."""
    import textnb
    from textnb.io.tables import Attribute

    rng = np.random.RandomState(0)
    y = rng.choice(["a", "b"], 200)
    x = np.where(y == "a", rng.normal(2, 1, 200), rng.normal(4, 1, 200)).round(1)
    x[:20] = np.round(x[:20])  # the first batch's numbers happen to be whole
    df = pd.DataFrame({"x": x, "c": rng.choice(["p", "q"], 200)})
    parts = textnb.AODE().partial_fit(df[:20], y[:20], classes=["a", "b"])
    before = parts.pair_count_.copy()
    with pytest.raises(ValueError, match=r"^column 'x' holds '[0-9.]+' in a later partial_fit batch, but the first "
                                         r"batch's values, all whole numbers, made it nominal .*declare it numeric "
                                         r"\(attributes=.*Attribute\('x', 'numeric'\).*or start with a batch that "
                                         r"shows its fractions$"):
        parts.partial_fit(df[20:], y[20:])
    assert np.array_equal(parts.pair_count_, before) and parts.frame_attributes_[0].kind == "nominal"
    whole = df.assign(x=np.round(x))  # whole numbers in every batch: the chunks are fit's model
    parts.partial_fit(whole[20:], y[20:])
    assert np.allclose(parts.predict_proba(whole), textnb.AODE().fit(whole, y).predict_proba(whole))
    declared = textnb.AODE(attributes=[Attribute("x", "numeric"), Attribute("c", "nominal", ["p", "q"])])
    declared.partial_fit(df[:20], y[:20], classes=["a", "b"]).partial_fit(df[20:], y[20:])  # the remedy
    assert declared.attributes_[0].kind == "numeric"


@pytest.mark.parametrize("name", ["TabularNB", "AODE", "MixedNB"])
def test_a_first_batch_with_a_column_of_no_known_value_is_widened_by_later_ones(tmp_path, name):
    """Found by a library hunt: a DataFrame's first ``partial_fit`` batch whose string
    column was all missing was refused (``column 'colour' has no known value``), though
    ``fit`` took the frame and later batches add nominal values: a row-by-row stream of
    UCI colic failed on its first row. Now the column is a nominal attribute without values
    until a batch gives them, and the chunks give ``fit``'s model (saved, the same); the
    model cannot be saved before (the file holds no attribute without values), and ``fit``
    on a frame whose column has no known value still refuses it."""
    import textnb
    from textnb.core.errors import ModelFileError

    make = getattr(textnb, name)
    X = pd.DataFrame({"colour": [None, "red", "blue", "red", "blue", "red", None, "blue"],
                      "size": ["s", "l", "s", "l", "s", "l", "l", "s"]})
    y = np.array(["a", "b", "a", "b", "a", "b", "b", "a"])
    model = make().partial_fit(X[:1], y[:1], classes=["a", "b"])
    with pytest.warns(DataWarning, match="column 'colour': 2 cells with values the model never saw"):
        assert model.predict_proba(X.iloc[[0, 2, 4]]).shape == (3, 2)  # (as missing)
    with pytest.raises(ModelFileError, match="'colour'.* nominal without values.*not written"):
        model.save(tmp_path / "m.tnb")
    for i in range(1, len(X)):  # one row at a time
        model.partial_fit(X[i:i + 1], y[i:i + 1])
    whole = make().fit(X, y)
    model.save(tmp_path / "m.tnb")
    for parts in (model, load(tmp_path / "m.tnb")):
        assert np.allclose(parts.predict_proba(X), whole.predict_proba(X))
    with pytest.raises(ValueError, match="column 'colour' has no known value"):
        make().fit(X[:1], y[:1])


@pytest.mark.parametrize("name", ["TabularNB", "AODE"])
def test_a_value_declared_attributes_lack_is_refused_in_frames_as_in_arrays(name):
    """With declared ``attributes`` a value they do not list is refused in training, in a
    DataFrame (it became a missing value without a word) as in an array of value indices."""
    import textnb
    from textnb.io.tables import Attribute

    make = getattr(textnb, name)
    attrs = (Attribute("colour", "nominal", ["a", "b"]), Attribute("size", "nominal", ["s", "l"]))
    X = pd.DataFrame({"colour": ["a", "b", "a", "b", "c", "c"], "size": ["s", "l", "s", "l", "s", "l"]})
    codes = np.array([[0, 0], [1, 1], [0, 0], [1, 1], [2, 0], [2, 1]], dtype=float)
    y = np.array([0, 1, 0, 1, 1, 1])
    for data in (X, codes):
        batch = data.iloc if is_frame(data) else data
        with pytest.raises(ValueError, match="colour|column 0"):
            make(attributes=attrs).fit(data, y)
        model = make(attributes=attrs).partial_fit(batch[:4], y[:4], classes=[0, 1])
        before = model.predict_proba(batch[:4])
        with pytest.raises(ValueError, match="colour|column 0"):
            model.partial_fit(batch[4:], y[4:])
        assert np.array_equal(model.predict_proba(batch[:4]), before)
    with pytest.raises(ValueError, match="'c', not one of the 2 values its attribute declares"):
        make(attributes=attrs).fit(X, y)


def test_a_category_column_of_whole_floats_is_counted():
    """A category column of 1.0 / 2.0 is counted as table_from_frame counts it (its values
    were named '1.0' / '2.0' but looked up as '1' / '2': every cell became a missing value)."""
    df = pd.DataFrame({"c": pd.Categorical([1.0, 2.0, 1.0, 2.0, 2.0]), "d": ["x", "y", "x", "y", "x"]})
    y = [0, 1, 0, 1, 1]
    model = TabularNB().fit(df, y)
    table = table_from_frame(df.assign(k=y), "k")
    coded = TabularNB(attributes=tuple(table.attributes)).fit(table.X, table.y)
    assert np.allclose(model.predict_proba(df), coded.predict_proba(table.X))
    assert model.feature_count_[:, :2].sum() == 5


def test_pandas_missing_markers_are_missing_in_training_as_in_queries():
    """pd.NA in a "boolean", "string" or object column and NaT in a date column are missing
    cells when a table is built from a frame (they were the categories '<NA>' and 'NaT'),
    as a query's cells read them (textnb.io.cells.is_missing)."""
    frame = pd.DataFrame({"b": pd.array([True, False, pd.NA, True], dtype="boolean"),
                          "s": pd.array(["x", pd.NA, "y", "x"], dtype="string"),
                          "o": ["a", pd.NA, None, "b"],
                          "t": pd.to_datetime(["2020-01-01", None, "2020-01-02", "2020-01-01"]),
                          "cls": ["p", "q", "p", "q"]})
    table = table_from_frame(frame, "cls")
    assert [a.values for a in table.attributes[:4]] == [["False", "True"], ["x", "y"], ["a", "b"],
                                                        ["2020-01-01 00:00:00", "2020-01-02 00:00:00"]]
    assert np.isnan(table.X[2, 0]) and np.isnan(table.X[1, 1]) and np.isnan(table.X[1, 2])
    assert np.isnan(table.X[2, 2]) and np.isnan(table.X[1, 3])
    model = TabularNB().fit(frame.drop(columns="cls"), frame["cls"])
    assert all("NA" not in v for a in model.attributes_ for v in a.values)
