"""The README's Python example, exactly as printed there."""

from conftest import REPO


def test_the_readme_python_example_runs():
    text = (REPO / "README.md").read_text()
    start = text.index("```python\n") + len("```python\n")
    code = text[start : text.index("```", start)]
    exec(compile(code, "README.md (Python example)", "exec"), {})


def test_the_package_docstring_example_runs():
    import doctest

    import ptoc

    assert doctest.testmod(ptoc).failed == 0
