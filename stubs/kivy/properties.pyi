from typing import Any, Generic, Self, TypeVar, overload

_Value = TypeVar("_Value")
_Number = TypeVar("_Number", int, float)

class Property:
    def __init__(self, defaultvalue: Any = ..., **kw: Any) -> None: ...

# Read on an instance, a property is the value it holds; read on the class, the property itself.
class _ValueProperty(Property, Generic[_Value]):
    @overload
    def __get__(self, obj: None, objtype: type | None = ...) -> Self: ...
    @overload
    def __get__(self, obj: object, objtype: type | None = ...) -> _Value: ...
    def __set__(self, obj: object, value: _Value) -> None: ...

class StringProperty(_ValueProperty[str]):
    def __init__(self, defaultvalue: str = ..., **kw: Any) -> None: ...

class BooleanProperty(_ValueProperty[bool]):
    def __init__(self, defaultvalue: bool = ..., **kw: Any) -> None: ...

# A count made with an int (`NumericProperty(0)`) reads as int, a measure made with a float as float.
class NumericProperty(_ValueProperty[_Number]):
    def __init__(self, defaultvalue: _Number = ..., **kw: Any) -> None: ...

class OptionProperty(_ValueProperty[str]):
    def __init__(self, defaultvalue: str = ..., *, options: list[str], **kw: Any) -> None: ...

# These hold whatever the code puts there (a view-model, a list of rows, a dict of counters): read on an
# instance they are what the class annotates, or Any.
class ObjectProperty(Property):
    def __new__(cls, defaultvalue: Any = ..., **kw: Any) -> Any: ...

class ListProperty(Property):
    def __new__(cls, defaultvalue: list[Any] | None = ..., **kw: Any) -> Any: ...

class DictProperty(Property):
    def __new__(cls, defaultvalue: dict[Any, Any] | None = ..., **kw: Any) -> Any: ...
