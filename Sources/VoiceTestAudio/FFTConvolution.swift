import Foundation

/// Linear convolution by overlap-add over the radix-2 FFT the spectral comparison uses
/// (``RealFFT``; the inverse as the conjugate of the transform of the conjugate): what the
/// simulated room needs to pass seconds of 48 kHz audio through tens of thousands of taps.
enum FFTConvolution {
    /// `signal` convolved with `kernel`, truncated to `signal.count` samples.
    static func convolve(_ signal: [Double], with kernel: [Double]) -> [Double] {
        guard !signal.isEmpty, !kernel.isEmpty else { return [Double](repeating: 0, count: signal.count) }
        var size = 1
        while size < 2 * kernel.count { size <<= 1 }
        let block = size - kernel.count + 1
        let fft = RealFFT(size: size)
        var kernelRe = [Double](repeating: 0, count: size)
        var kernelIm = [Double](repeating: 0, count: size)
        for i in kernel.indices { kernelRe[i] = kernel[i] }
        fft.transform(&kernelRe, &kernelIm)
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
            fft.transform(&re, &im)
            // The product, conjugated: transforming it again gives the inverse, conjugated (the
            // real part, all that is kept, is the same).
            for i in 0..<size {
                let r = re[i] * kernelRe[i] - im[i] * kernelIm[i]
                im[i] = -(re[i] * kernelIm[i] + im[i] * kernelRe[i])
                re[i] = r
            }
            fft.transform(&re, &im)
            let count = min(n + kernel.count - 1, output.count - start)
            for i in 0..<count { output[start + i] += re[i] / Double(size) }
            start += block
        }
        return Array(output.prefix(signal.count))
    }
}
