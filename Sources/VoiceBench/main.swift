print("voice-bench")
