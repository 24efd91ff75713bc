from typing import Any

class FactoryBase:
    classes: dict[str, dict[str, Any]]
    def register(self, classname: str, cls: type | None = ..., module: str | None = ...,
                 is_template: bool = ..., baseclasses: str | None = ..., filename: str | None = ...,
                 warn: bool = ...) -> None: ...
    # Every class registered by name (the .kv files' rules, Kivy's widgets): `Factory.GButton(...)`.
    def __getattr__(self, name: str) -> Any: ...

Factory: FactoryBase
