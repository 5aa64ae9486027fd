print("UserSync")
