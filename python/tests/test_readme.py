"""The README's Python examples, exactly as printed there."""

from conftest import REPO


def test_the_readme_python_examples_run():
    text = (REPO / "README.md").read_text()
    blocks = [b[: b.index("```")] for b in text.split("```python\n")[1:]]
    assert len(blocks) == 3  # a tile kernel, a kernel over global memory, a linalg program
    for i, code in enumerate(blocks):
        exec(compile(code, f"README.md (Python example {i + 1})", "exec"), {})


def test_the_package_docstring_example_runs():
    import doctest

    import ptoc

    assert doctest.testmod(ptoc).failed == 0
