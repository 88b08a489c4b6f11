"""weft.db: a Session's results against Python's sqlite3 module, an independent SQL engine
loaded with the same data here."""
import os
import sqlite3

import numpy as np
import pytest

import weft
from weft.db import Session

EXAMPLES = os.environ.get("WEFT_EXAMPLES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
ORDERS = os.path.join(EXAMPLES, "db", "orders.csv")
CUSTOMERS = os.path.join(EXAMPLES, "db", "customers.csv")


@pytest.fixture(scope="module")
def device():
    dev = weft.Device(validation=True)
    yield dev
    assert dev.validation_messages() == []


def csv_fields(line):
    """One line's fields as Weft's loader reads them (docs/db.md): an empty unquoted field is None
    (NULL), a quoted one is text with "" for a quote. csv.reader cannot tell "" from nothing."""
    fields, field, quoted, inside, i = [], "", False, False, 0
    while i < len(line):
        ch = line[i]
        if inside and ch == '"' and line[i + 1:i + 2] == '"':
            field, i = field + '"', i + 1
        elif ch == '"':
            inside, quoted = not inside, True
        elif ch == "," and not inside:
            fields.append(field if field or quoted else None)
            field, quoted = "", False
        else:
            field += ch
        i += 1
    fields.append(field if field or quoted else None)
    return fields


def sqlite_from_csv(con, name, path, types):
    with open(path, newline="") as f:
        lines = f.read().splitlines()  # the example files have no newline inside a quoted field
    header, body = csv_fields(lines[0]), [csv_fields(line) for line in lines[1:] if line]
    con.execute(f"CREATE TABLE {name} ({', '.join(f'{h} {t}' for h, t in zip(header, types))})")
    con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * len(header))})", body)


def same_rows(weft_rows, sqlite_rows):
    assert len(weft_rows) == len(sqlite_rows)
    for got, want in zip(weft_rows, sqlite_rows):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            if isinstance(w, float):
                assert g == pytest.approx(w, rel=1e-9, abs=1e-9)
            else:
                assert g == w


@pytest.fixture(scope="module")
def examples(device):
    s = Session(device)
    s.load_csv("orders", ORDERS, "id:int,customer:int,amount:float,qty:int,region:text")
    s.load_csv("customers", CUSTOMERS)
    con = sqlite3.connect(":memory:")
    sqlite_from_csv(con, "orders", ORDERS, ["INTEGER", "INTEGER", "REAL", "INTEGER", "TEXT"])
    sqlite_from_csv(con, "customers", CUSTOMERS, ["INTEGER", "TEXT", "TEXT", "TEXT"])
    return s, con


def test_a_join_with_group_by_gives_sqlites_rows(examples):
    s, con = examples
    sql = ("SELECT c.tier, COUNT(*), SUM(o.qty), AVG(o.amount) FROM orders o JOIN customers c ON o.customer = c.id "
           "GROUP BY c.tier ORDER BY c.tier")
    r = s.query(sql)
    assert r.types == ["text", "int", "int", "float"]
    same_rows(list(r.rows()), con.execute(sql).fetchall())


def test_result_columns_are_masked_arrays_of_int64_float64_and_object(examples):
    s, con = examples
    r = s.query("SELECT id, amount, region FROM orders WHERE id <= 5 ORDER BY id")
    assert [c.dtype for c in r.columns] == [np.int64, np.float64, object]
    assert r["id"].tolist() == [row[0] for row in con.execute("SELECT id FROM orders WHERE id <= 5 ORDER BY id")]
    assert not r["region"].mask.any()


def test_tables_and_schema_name_the_loaded_columns(examples):
    s, _ = examples
    assert sorted(s.tables()) == ["customers", "orders"]
    assert s.schema("orders") == [("id", "int"), ("customer", "int"), ("amount", "float"), ("qty", "int"), ("region", "text")]


def test_a_repeated_query_uploads_nothing_where_tables_are_resident(examples):
    s, _ = examples
    sql = "SELECT region, SUM(amount) FROM orders GROUP BY region ORDER BY region"
    first = s.query(sql)
    second = s.query(sql)
    timing = s.last_timing
    assert timing["cached"]
    if s.resident:
        assert timing["uploaded_bytes"] == 0
    same_rows(list(second.rows()), list(first.rows()))


def test_a_second_different_query_uploads_no_table_where_tables_are_resident(examples):
    s, _ = examples
    s.query("SELECT COUNT(*) FROM orders")
    s.query("SELECT tier, COUNT(*) FROM customers GROUP BY tier")
    timing = s.last_timing
    assert not timing["cached"]
    if s.resident:
        assert timing["uploaded_bytes"] == 0


def numpy_table():
    return {
        "k": np.array([1, 2, 3, 4, 5], dtype=np.int64),
        "x": np.ma.MaskedArray([1.5, 2.5, -3.0, 0.0, 7.25], mask=[False, True, False, False, True]),
        "s": np.array(["b", None, "a", "b", "c"], dtype=object),
        "n": np.ma.MaskedArray(np.array([10, 20, 30, 40, 50], dtype=np.int32), mask=[True, False, False, True, False]),
    }


def sqlite_from_numpy(con, name, columns):
    names = list(columns)
    con.execute(f"CREATE TABLE {name} (k INTEGER, x REAL, s TEXT, n INTEGER)")
    def value(c, r):
        a = columns[c]
        if np.ma.isMaskedArray(a) and a.mask[r]:
            return None
        v = a[r]
        return v.item() if hasattr(v, "item") else v
    rows = [tuple(value(c, r) for c in names) for r in range(len(columns["k"]))]
    con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?, ?)", rows)


@pytest.fixture(scope="module")
def with_nulls(device):
    s = Session(device)
    s.add_table("t", numpy_table())
    con = sqlite3.connect(":memory:")
    sqlite_from_numpy(con, "t", numpy_table())
    return s, con


@pytest.mark.parametrize("sql", [
    "SELECT k, x, s, n FROM t ORDER BY k",
    "SELECT s, COUNT(*), COUNT(x), SUM(n) FROM t GROUP BY s ORDER BY s",
    "SELECT k FROM t WHERE x IS NULL OR n IS NULL ORDER BY k",
    "SELECT k, s FROM t WHERE s > 'a' ORDER BY k",
])
def test_numpy_tables_with_nulls_give_sqlites_rows(with_nulls, sql):
    s, con = with_nulls
    same_rows(list(s.query(sql).rows()), con.execute(sql).fetchall())


def test_nulls_come_back_masked(with_nulls):
    s, _ = with_nulls
    r = s.query("SELECT x, s FROM t ORDER BY k")
    assert r["x"].mask.tolist() == [False, True, False, False, True]
    assert r["s"].mask.tolist() == [False, True, False, False, False]
    assert r["s"].compressed().tolist() == ["b", "a", "b", "c"]


def test_a_bool_column_is_refused_by_its_dtype(device):
    s = Session(device)
    with pytest.raises(weft.BadInput, match="bool"):
        s.add_table("b", {"flag": np.array([True, False])})


def test_a_number_in_a_text_column_is_refused(device):
    s = Session(device)
    with pytest.raises(weft.BadInput, match="row 1"):
        s.add_table("b", {"s": np.array(["a", 3], dtype=object)})


def test_columns_of_different_lengths_are_refused(device):
    s = Session(device)
    with pytest.raises(weft.BadInput, match="rows"):
        s.add_table("b", {"a": np.arange(3), "c": np.arange(4)})


def test_an_unknown_table_is_an_error(with_nulls):
    s, _ = with_nulls
    with pytest.raises(weft.Error, match="(?i)nosuch"):
        s.query("SELECT * FROM nosuch")
    with pytest.raises(weft.BadInput, match="nosuch"):
        s.schema("nosuch")


def test_nan_is_refused_rather_than_taken_for_null(device):
    s = Session(device)
    with pytest.raises(weft.BadInput, match="NaN"):
        s.add_table("b", {"x": np.array([1.0, float("nan")])})


def test_a_float_column_gives_sqlites_sums(device):
    rng = np.random.default_rng(7)
    x = rng.normal(size=200)
    g = rng.integers(0, 5, size=200)
    s = Session(device)
    s.add_table("f", {"g": g, "x": x})
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE f (g INTEGER, x REAL)")
    con.executemany("INSERT INTO f VALUES (?, ?)", zip(g.tolist(), x.tolist()))
    sql = "SELECT g, COUNT(*), MIN(x), MAX(x), SUM(x) FROM f GROUP BY g ORDER BY g"
    same_rows(list(s.query(sql).rows()), con.execute(sql).fetchall())


def test_quoted_empty_text_is_an_empty_string_not_null(examples):
    s, con = examples
    sql = "SELECT id, city FROM customers WHERE city = '' OR city IS NULL ORDER BY id"
    r = s.query(sql)
    assert r["city"].mask.any() and not r["city"].mask.all()  # the file has both kinds
    same_rows(list(r.rows()), con.execute(sql).fetchall())
