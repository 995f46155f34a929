import Foundation

/// Linear convolution by overlap-add over a radix-2 FFT: what the simulated room needs to pass
/// seconds of 48 kHz audio through an impulse response of tens of thousands of taps.
enum FFTConvolution {
    /// `signal` convolved with `kernel`, truncated to `signal.count` samples.
    static func convolve(_ signal: [Double], with kernel: [Double]) -> [Double] {
        guard !signal.isEmpty, !kernel.isEmpty else { return [Double](repeating: 0, count: signal.count) }
        var size = 1
        while size < 2 * kernel.count { size <<= 1 }
        let block = size - kernel.count + 1
        var kernelRe = [Double](repeating: 0, count: size)
        var kernelIm = [Double](repeating: 0, count: size)
        for i in kernel.indices { kernelRe[i] = kernel[i] }
        transform(&kernelRe, &kernelIm, inverse: false)
        var output = [Double](repeating: 0, count: signal.count + kernel.count)
        var re = [Double](repeating: 0, count: size)
        var im = [Double](repeating: 0, count: size)
        var start = 0
        while start < signal.count {
            let n = min(block, signal.count - start)
            for i in 0..<size {
                re[i] = i < n ? signal[start + i] : 0
                im[i] = 0
            }
            transform(&re, &im, inverse: false)
            for i in 0..<size {
                let r = re[i] * kernelRe[i] - im[i] * kernelIm[i]
                im[i] = re[i] * kernelIm[i] + im[i] * kernelRe[i]
                re[i] = r
            }
            transform(&re, &im, inverse: true)
            let count = min(n + kernel.count - 1, output.count - start)
            for i in 0..<count { output[start + i] += re[i] / Double(size) }
            start += block
        }
        return Array(output.prefix(signal.count))
    }

    /// In-place iterative radix-2 FFT (unscaled; the inverse differs only in the sign).
    static func transform(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
        let n = re.count
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                var j = 0
                for i in 1..<n {
                    var bit = n >> 1
                    while j & bit != 0 {
                        j ^= bit
                        bit >>= 1
                    }
                    j |= bit
                    if i < j {
                        re.swapAt(i, j)
                        im.swapAt(i, j)
                    }
                }
                var length = 2
                while length <= n {
                    let angle = (inverse ? 2 : -2) * Double.pi / Double(length)
                    let stepRe = cos(angle), stepIm = sin(angle)
                    var start = 0
                    while start < n {
                        var wRe = 1.0, wIm = 0.0
                        for k in 0..<(length / 2) {
                            let a = start + k, b = a + length / 2
                            let tRe = re[b] * wRe - im[b] * wIm
                            let tIm = re[b] * wIm + im[b] * wRe
                            re[b] = re[a] - tRe
                            im[b] = im[a] - tIm
                            re[a] += tRe
                            im[a] += tIm
                            let next = wRe * stepRe - wIm * stepIm
                            wIm = wRe * stepIm + wIm * stepRe
                            wRe = next
                        }
                        start += length
                    }
                    length <<= 1
                }
            }
        }
    }
}
