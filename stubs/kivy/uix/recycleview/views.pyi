from typing import Any

class RecycleDataViewBehavior:
    def refresh_view_attrs(self, rv: Any, index: int, data: dict[str, Any]) -> None: ...
