from typing import Any

from kivy.uix.scrollview import ScrollView

class RecycleView(ScrollView):
    data: Any
    def refresh_from_data(self, *args: Any, **kwargs: Any) -> None: ...
