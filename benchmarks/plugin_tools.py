"""Forty tools a notebook agent gathers, in four plugins: what benchmark P7 measures.

Real functions with typed arguments and Google-style docstrings, made tools by `@nt.tool` as a
user's would be; only their definitions are measured, so their bodies do nothing.
"""

from __future__ import annotations

from typing import Literal

import notebook_tools as nt

# -- cleaning ----------------------------------------------------------------------------------------


@nt.tool
def describe_frame(frame: str) -> str:
    """Describe a DataFrame: shape, column types, missing values per column and duplicate rows.

    Args:
        frame: Name of the DataFrame variable in the kernel.
    """
    return ""


@nt.tool
def drop_duplicates(frame: str, subset: list[str] | None = None) -> str:
    """Drop duplicate rows, keeping the first of each group of equal rows.

    Args:
        frame: Name of the DataFrame variable.
        subset: Columns that decide equality; all columns when omitted.
    """
    return ""


@nt.tool
def drop_missing(frame: str, columns: list[str], how: Literal["any", "all"] = "any") -> str:
    """Drop rows with missing values in the given columns.

    Args:
        frame: Name of the DataFrame variable.
        columns: Columns that must not be missing.
        how: Drop a row when any or all of the columns are missing.
    """
    return ""


@nt.tool
def fill_missing(
    frame: str,
    column: str,
    strategy: Literal["constant", "mean", "median", "mode", "ffill", "bfill"] = "median",
    value: float | str | None = None,
) -> str:
    """Fill missing values of a column with a constant or a statistic of the column.

    Args:
        frame: Name of the DataFrame variable.
        column: The column to fill.
        strategy: How to choose the fill value.
        value: The value for the constant strategy.
    """
    return ""


@nt.tool
def convert_type(
    frame: str,
    column: str,
    to: Literal["int", "float", "str", "bool", "datetime", "category"],
    date_format: str | None = None,
) -> str:
    """Convert a column to another type; values that do not convert become missing.

    Args:
        frame: Name of the DataFrame variable.
        column: The column to convert.
        to: The target type.
        date_format: strftime format for datetime conversion; inferred when omitted.
    """
    return ""


@nt.tool
def rename_columns(frame: str, mapping: dict[str, str]) -> str:
    """Rename columns of a DataFrame.

    Args:
        frame: Name of the DataFrame variable.
        mapping: Old column name to new column name.
    """
    return ""


@nt.tool
def strip_whitespace(frame: str, columns: list[str] | None = None) -> str:
    """Strip leading and trailing whitespace from text columns and collapse inner runs of spaces.

    Args:
        frame: Name of the DataFrame variable.
        columns: Text columns to clean; all text columns when omitted.
    """
    return ""


@nt.tool
def find_outliers(frame: str, column: str, k: float = 1.5, limit: int = 20) -> str:
    """List rows whose value in a numeric column lies outside k interquartile ranges.

    Args:
        frame: Name of the DataFrame variable.
        column: The numeric column.
        k: How many interquartile ranges beyond the quartiles count as an outlier.
        limit: Most rows to return.
    """
    return ""


@nt.tool
def clip_values(frame: str, column: str, lower: float | None = None, upper: float | None = None) -> str:
    """Clip a numeric column to a range.

    Args:
        frame: Name of the DataFrame variable.
        column: The numeric column.
        lower: Smallest value kept; no lower bound when omitted.
        upper: Largest value kept; no upper bound when omitted.
    """
    return ""


@nt.tool
def value_counts(frame: str, column: str, top: int = 10, normalize: bool = False) -> str:
    """Count the distinct values of a column, most frequent first.

    Args:
        frame: Name of the DataFrame variable.
        column: The column.
        top: How many values to return.
        normalize: Return shares instead of counts.
    """
    return ""


# -- plotting ----------------------------------------------------------------------------------------


@nt.tool
def line_chart(frame: str, x: str, y: list[str], title: str | None = None) -> str:
    """Draw a line chart of one or more columns against an x column.

    Args:
        frame: Name of the DataFrame variable.
        x: Column for the x axis.
        y: Columns to draw as lines.
        title: Chart title.
    """
    return ""


@nt.tool
def bar_chart(
    frame: str,
    category: str,
    value: str,
    agg: Literal["sum", "mean", "count", "median"] = "sum",
    horizontal: bool = False,
) -> str:
    """Draw a bar chart of a value aggregated per category.

    Args:
        frame: Name of the DataFrame variable.
        category: Column with the categories.
        value: Numeric column to aggregate.
        agg: How to aggregate the values of a category.
        horizontal: Draw horizontal bars.
    """
    return ""


@nt.tool
def histogram(frame: str, column: str, bins: int = 20, log_scale: bool = False) -> str:
    """Draw a histogram of a numeric column.

    Args:
        frame: Name of the DataFrame variable.
        column: The numeric column.
        bins: Number of bins.
        log_scale: Use a logarithmic y axis.
    """
    return ""


@nt.tool
def scatter_plot(frame: str, x: str, y: str, color_by: str | None = None, trend_line: bool = False) -> str:
    """Draw a scatter plot of two numeric columns, optionally coloured by a third.

    Args:
        frame: Name of the DataFrame variable.
        x: Column for the x axis.
        y: Column for the y axis.
        color_by: Column whose values colour the points.
        trend_line: Add a least-squares line.
    """
    return ""


@nt.tool
def box_plot(frame: str, column: str, by: str | None = None) -> str:
    """Draw box plots of a numeric column per group.

    Args:
        frame: Name of the DataFrame variable.
        column: The numeric column.
        by: Column to group by.
    """
    return ""


@nt.tool
def heatmap(
    frame: str,
    columns: list[str] | None = None,
    method: Literal["pearson", "spearman", "kendall"] = "pearson",
) -> str:
    """Draw a heatmap of the correlation matrix of numeric columns.

    Args:
        frame: Name of the DataFrame variable.
        columns: Columns to include; all numeric columns when omitted.
        method: Correlation method.
    """
    return ""


@nt.tool
def pie_chart(frame: str, category: str, top: int = 6) -> str:
    """Draw a pie chart of the shares of categories.

    Args:
        frame: Name of the DataFrame variable.
        category: Column with the categories.
        top: Categories shown; the rest are grouped as other.
    """
    return ""


@nt.tool
def set_style(
    theme: Literal["default", "dark", "whitegrid", "ticks"], palette: str | None = None, font_size: int = 11
) -> str:
    """Set the style used by the next charts.

    Args:
        theme: Overall look.
        palette: A matplotlib colormap name.
        font_size: Base font size in points.
    """
    return ""


@nt.tool
def save_figure(path: str, dpi: int = 150, transparent: bool = False) -> str:
    """Save the last chart as an image file.

    Args:
        path: Where to save it, relative to the working directory.
        dpi: Resolution in dots per inch.
        transparent: Transparent background.
    """
    return ""


@nt.tool
def time_series_plot(
    frame: str,
    date_column: str,
    value: str,
    frequency: Literal["D", "W", "M", "Q", "Y"] = "M",
    rolling: int | None = None,
) -> str:
    """Draw a column over time, resampled to a fixed frequency.

    Args:
        frame: Name of the DataFrame variable.
        date_column: Column with dates.
        value: Numeric column to draw.
        frequency: Resampling frequency.
        rolling: Window of a rolling mean drawn on top.
    """
    return ""


# -- files -------------------------------------------------------------------------------------------


@nt.tool
def list_files(directory: str = ".", pattern: str = "*", recursive: bool = False) -> str:
    """List files under a directory that match a glob pattern, with sizes and modification times.

    Args:
        directory: Directory relative to the working directory.
        pattern: Glob pattern, such as *.csv.
        recursive: Search subdirectories too.
    """
    return ""


@nt.tool
def read_text(path: str, start_line: int = 1, max_lines: int = 200) -> str:
    """Read a text file, or part of it.

    Args:
        path: The file's path.
        start_line: First line to return (1-based).
        max_lines: Most lines to return.
    """
    return ""


@nt.tool
def write_text(path: str, text: str, append: bool = False) -> str:
    """Write text to a file, replacing it or appending.

    Args:
        path: The file's path.
        text: What to write.
        append: Append instead of replacing.
    """
    return ""


@nt.tool
def read_csv(path: str, name: str, sep: str = ",", encoding: str = "utf-8", nrows: int | None = None) -> str:
    """Load a CSV file into a DataFrame variable of the kernel.

    Args:
        path: The file's path.
        name: Name of the DataFrame variable to create.
        sep: Field separator.
        encoding: Text encoding.
        nrows: Rows to read; all when omitted.
    """
    return ""


@nt.tool
def write_csv(name: str, path: str, index: bool = False) -> str:
    """Save a DataFrame variable of the kernel as a CSV file.

    Args:
        name: Name of the DataFrame variable.
        path: Where to save it.
        index: Write the index as a column.
    """
    return ""


@nt.tool
def read_parquet(path: str, name: str, columns: list[str] | None = None) -> str:
    """Load a Parquet file into a DataFrame variable of the kernel.

    Args:
        path: The file's path.
        name: Name of the DataFrame variable to create.
        columns: Columns to load; all when omitted.
    """
    return ""


@nt.tool
def file_info(path: str) -> str:
    """Show a file's size, type, modification time and, for text, its first lines.

    Args:
        path: The file's path.
    """
    return ""


@nt.tool
def move_file(source: str, destination: str, overwrite: bool = False) -> str:
    """Move or rename a file.

    Args:
        source: The file's current path.
        destination: Its new path.
        overwrite: Replace an existing file at the destination.
    """
    return ""


@nt.tool
def delete_file(path: str) -> str:
    """Delete a file (never a directory).

    Args:
        path: The file's path.
    """
    return ""


@nt.tool
def search_text(pattern: str, directory: str = ".", glob: str = "*.py", max_matches: int = 50) -> str:
    """Search files for lines that match a regular expression.

    Args:
        pattern: A Python regular expression.
        directory: Where to search.
        glob: Which files to search.
        max_matches: Most matching lines to return.
    """
    return ""


# -- database ----------------------------------------------------------------------------------------


@nt.tool
def list_tables() -> str:
    """List the tables and views of the database with their row counts."""
    return ""


@nt.tool
def describe_table(table: str) -> str:
    """Show a table's columns, types, keys and indexes.

    Args:
        table: The table's name.
    """
    return ""


@nt.tool
def run_query(sql: str, limit: int = 100) -> str:
    """Run a read-only SQL query and return the rows as a table.

    Args:
        sql: One SELECT statement.
        limit: Most rows to return.
    """
    return ""


@nt.tool
def execute_statement(sql: str, parameters: list[str | int | float | None] | None = None) -> str:
    """Run one SQL statement that changes data or schema (INSERT, UPDATE, DELETE, CREATE, ALTER).

    Args:
        sql: The statement.
        parameters: Values for its ? placeholders, in order.
    """
    return ""


@nt.tool
def explain_query(sql: str) -> str:
    """Show SQLite's query plan for a query, to find missing indexes.

    Args:
        sql: The query.
    """
    return ""


@nt.tool
def create_index(table: str, columns: list[str], unique: bool = False) -> str:
    """Create an index on columns of a table.

    Args:
        table: The table's name.
        columns: Columns of the index, in order.
        unique: A unique index.
    """
    return ""


@nt.tool
def import_frame(name: str, table: str, if_exists: Literal["fail", "replace", "append"] = "fail") -> str:
    """Write a DataFrame variable of the kernel into a table.

    Args:
        name: Name of the DataFrame variable.
        table: The table to write.
        if_exists: What to do when the table exists.
    """
    return ""


@nt.tool
def export_query(sql: str, name: str) -> str:
    """Run a query and keep the result as a DataFrame variable of the kernel.

    Args:
        sql: The query.
        name: Name of the DataFrame variable to create.
    """
    return ""


@nt.tool
def table_sample(table: str, n: int = 10, seed: int | None = None) -> str:
    """Return random rows of a table.

    Args:
        table: The table's name.
        n: How many rows.
        seed: Random seed, for the same sample again.
    """
    return ""


@nt.tool
def column_stats(table: str, column: str) -> str:
    """Summary statistics of a column: count, distinct, missing, min, max, mean.

    Args:
        table: The table's name.
        column: The column's name.
    """
    return ""


PLUGINS: dict[str, tuple[str, list[nt.Tool]]] = {
    "cleaning": (
        "Inspect and fix pandas DataFrames: types, missing values, duplicates, outliers, renames",
        [
            describe_frame,
            drop_duplicates,
            drop_missing,
            fill_missing,
            convert_type,
            rename_columns,
            strip_whitespace,
            find_outliers,
            clip_values,
            value_counts,
        ],
    ),
    "plotting": (
        "Charts of DataFrames (matplotlib), shown in the notebook and saved as PNG",
        [
            line_chart,
            bar_chart,
            histogram,
            scatter_plot,
            box_plot,
            heatmap,
            pie_chart,
            set_style,
            save_figure,
            time_series_plot,
        ],
    ),
    "files": (
        "Find, read, write and move files in the notebook's working directory",
        [
            list_files,
            read_text,
            write_text,
            read_csv,
            write_csv,
            read_parquet,
            file_info,
            move_file,
            delete_file,
            search_text,
        ],
    ),
    "database": (
        "SQL on the project's SQLite database: schema, queries, imports and exports",
        [
            list_tables,
            describe_table,
            run_query,
            execute_statement,
            explain_query,
            create_index,
            import_frame,
            export_query,
            table_sample,
            column_stats,
        ],
    ),
}
"""Plugin name -> (its description, its ten tools)."""
