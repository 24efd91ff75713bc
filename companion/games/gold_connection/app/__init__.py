"""Gold Connection at the table (Kivy): its controller, its table panel and the vault board widget."""
